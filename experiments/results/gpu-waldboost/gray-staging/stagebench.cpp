// The staging micro-benchmark of 2026-11-25 (gpu-waldboost.md, "The frame staged in gray"): copy_rows of a
// 1920x1080 RGB frame against stage_gray, at 1, 4, 8 and 16 TBB threads and TBB's default. Built against a build-gpu tree:
// g++ -O3 -std=c++20 -Iruntime/src/cuda -Ifeatures/include stagebench.cpp build-gpu/runtime/libcascadekit_runtime.a \
//     build-gpu/features/libcascadekit_features.a -ltbb -o stagebench
#include "host_copy.hpp"
#include "cascadekit/features/image.hpp"
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <memory>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
using namespace cascadekit;
template <class F> double med(int n, F f) { std::vector<double> t; for (int i=0;i<n;++i){auto a=std::chrono::steady_clock::now(); f(); t.push_back(std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-a).count());} std::sort(t.begin(),t.end()); return t[t.size()/2]; }
int main(int argc, char**argv){
  int w=1920,h=1080; std::vector<std::uint8_t> px(w*h*3); for(size_t i=0;i<px.size();++i) px[i]=(uint8_t)(i*7+i/13);
  ImageView v{px.data(),w,h,(std::ptrdiff_t)w*3,3,ChannelOrder::BGR};
  std::uint8_t* dst = static_cast<std::uint8_t*>(std::aligned_alloc(64, px.size()));
  for (int threads : {0, 1, 4, 8, 16}) {
    std::unique_ptr<tbb::global_control> g; if (threads) g = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, threads);
    double c = med(201, [&]{ cuda::copy_rows(dst, px.data(), h, (size_t)w*3, (std::ptrdiff_t)w*3); });
    double s = med(201, [&]{ cuda::stage_gray(dst, v); });
    double r = med(51, [&]{ gray_rows(v, 0, h, dst, w, false); });
    printf("threads %2d: copy_rows RGB %.3f ms, stage_gray %.3f ms, gray_rows one call %.3f ms;", threads, c, s, r);
    for (int rows : {8, 16, 32, 64}) {
      double b = med(201, [&]{ tbb::parallel_for(tbb::blocked_range<int>(0, h, rows), [&](const tbb::blocked_range<int>& q){ gray_rows(v, q.begin(), q.end(), dst + (size_t)q.begin()*w, w, true); }); });
      printf(" grain %d rows %.3f;", rows, b);
    }
    printf("\n");
  }
}
