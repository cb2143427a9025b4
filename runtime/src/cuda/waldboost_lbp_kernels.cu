// waldboost_lbp stages on the GPU (Šochman & Matas, CVPR 2005; Herout et al. 2011; Macenauer, Brno
// 2015): the running sum of LBP look-ups with early rejection after every weak classifier, as
// runtime/src/stages/waldboost_lbp.cpp does it on the CPU (same float additions in the same order,
// so decisions and scores are bit-identical). The sequence runs in parts: every window through the
// first weak classifiers, then the survivors, compacted at boundaries (CudaOptions::lbp_boundaries,
// Macenauer's 1, 8, 64, 256, 512 by default), so that few threads idle while their warp's last
// window is still being evaluated. Parts from CudaOptions::lbp_warp_from on run a warp per
// window: the few windows that get that far each take hundreds of weak classifiers, which one
// thread would look up one after another (1.2 ms for 1536 weak classifiers at 1920×1080).
#include <algorithm>
#include <string>
#include <vector>

#include "cascadekit/features/lbp.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include "stage_kinds.cuh"
#include "survivors.cuh"

namespace cascadekit::cuda {

namespace {
// A weak classifier's cell grid (window pixels) and rejection threshold θ_B.
struct DevWeak {
    std::uint16_t x, y, w, h;
    float theta;
};

// One part's weak classifiers, passed as a kernel parameter: they live in the constant bank,
// and every thread of a warp reads the same record at the same time (a broadcast). Capacity
// classes keep the small early parts' launches light; the CUDA 12.1+ parameter limit is 32 764
// bytes. The 256-entry response tables (1 KiB a weak classifier) stay in global memory, where
// they are L2-resident (2 MiB for 2048 weak classifiers).
template <int Cap>
struct Part {
    int first;  // the stage's index of weak[0]
    int count;
    int last;   // 1 when the part ends the stage: then the final threshold decides
    float final_threshold;
    DevWeak weak[Cap];
};
constexpr int kSmallPart = 64, kLargePart = 2048;
static_assert(sizeof(Part<kLargePart>) + sizeof(SurvivorArgs) + 64 < 32764, "kernel parameters over the limit");

// Thread mapping: one thread per window (grid-stride over the survivors, a block of Threads at a
// time: CudaOptions::lbp_block_threads);
// appends the windows that survive the part (survivors.cuh) and counts the weak classifiers it
// evaluates.
template <int Cap, int Threads>
__global__ void __launch_bounds__(Threads) lbp_part_kernel(SurvivorArgs a, const std::uint32_t* __restrict__ gray,
                                                             const float* __restrict__ tables, const __grid_constant__ Part<Cap> p) {
    const std::uint32_t count = a.in_count ? *a.in_count : a.n_windows;
    const std::uint32_t loop_n = a.flags ? a.n_windows : count;
    const std::uint32_t step = gridDim.x * blockDim.x;
    for (std::uint32_t block_i = blockIdx.x * blockDim.x; block_i < loop_n; block_i += step) {
        const std::uint32_t i = block_i + threadIdx.x;
        bool pass = false;
        std::uint32_t id = 0, evaluated = 0;
        if (i < count) {
            id = a.in_ids ? a.in_ids[i] : i;
            long long origin;
            int pitch;
            window_origin(a, id, origin, pitch);
            const std::uint32_t* o = gray + origin;
            float h = p.first == 0 ? 0.0f : a.stage_sum[id];
            pass = true;
            for (int t = 0; t < p.count; ++t) {
                const DevWeak& c = p.weak[t];
                const std::uint8_t code = lbp_code(o, static_cast<std::size_t>(pitch), c.x, c.y, c.w, c.h);
                h += __ldg(tables + (static_cast<std::size_t>(p.first + t) << 8) + code);
                ++evaluated;
                if (h < c.theta) {
                    record(a, id, h - c.theta, false);
                    pass = false;
                    break;
                }
            }
            if (pass) {
                if (p.last) {
                    const float score = h - p.final_threshold;
                    pass = score >= 0.0f;
                    record(a, id, score, pass);
                } else {
                    a.stage_sum[id] = h;
                }
            }
        }
        count_weak(a, evaluated);
        append<Threads>(a, i, loop_n, id, pass);
    }
}

// Late parts, few survivors with many weak classifiers each. Thread mapping: one warp per window
// (grid-stride over the survivors); lane l looks up weak classifier c0 + l of each chunk of 32 at
// once (their loads overlap instead of queueing one after another), then every lane adds the 32
// responses in weak-classifier order from shuffles, so the running sum, and the weak classifier
// at which it first falls below θ_B, are the CPU's. A warp's lanes hold the same sum, so they
// leave the loop together. Lane 0 records the window and appends it (one atomicAdd a survivor).
template <int Cap, int Threads>
__global__ void __launch_bounds__(Threads) lbp_part_warp_kernel(SurvivorArgs a, const std::uint32_t* __restrict__ gray,
                                                                  const float* __restrict__ tables,
                                                                  const __grid_constant__ Part<Cap> p) {
    const int lane = threadIdx.x & 31;
    for_each_window_per_warp(a, [&](std::uint32_t w, std::uint32_t id) {
        long long origin;
        int pitch;
        window_origin(a, id, origin, pitch);
        const std::uint32_t* o = gray + origin;
        float h = p.first == 0 ? 0.0f : a.stage_sum[id];
        int evaluated = 0;
        bool rejected = false;
        float margin = 0.0f;
        for (int c0 = 0; c0 < p.count && !rejected; c0 += 32) {
            const int t = c0 + lane;
            float r = 0.0f;
            if (t < p.count) {
                const DevWeak& c = p.weak[t];
                r = __ldg(tables + (static_cast<std::size_t>(p.first + t) << 8) +
                          lbp_code(o, static_cast<std::size_t>(pitch), c.x, c.y, c.w, c.h));
            }
            const int lim = min(32, p.count - c0);
            for (int j = 0; j < lim; ++j) {
                h += __shfl_sync(kFullMask, r, j);
                ++evaluated;
                if (h < p.weak[c0 + j].theta) {
                    rejected = true;
                    margin = h - p.weak[c0 + j].theta;
                    break;
                }
            }
        }
        if (lane == 0) {
            atomicAdd(a.weak_count, static_cast<unsigned long long>(evaluated));
            bool pass = false;
            if (rejected) {
                record(a, id, margin, false);
            } else if (p.last) {
                const float score = h - p.final_threshold;
                pass = score >= 0.0f;
                record(a, id, score, pass);
            } else {
                a.stage_sum[id] = h;
                pass = true;
            }
            append_one(a, w, id, pass);
        }
    });
}

class WaldBoostLbpCudaStage final : public CudaStage {
public:
    WaldBoostLbpCudaStage(const WaldBoostLbpStage& stage, const CudaOptions& options)
        : final_(stage.final_threshold), threads_(options.lbp_block_threads), warp_from_(options.lbp_warp_from) {
        std::vector<float> tables;
        tables.reserve(stage.weak.size() * 256);
        for (const LbpWeakClassifier& c : stage.weak) {
            weak_.push_back({static_cast<std::uint16_t>(c.cell.x), static_cast<std::uint16_t>(c.cell.y),
                             static_cast<std::uint16_t>(c.cell.w), static_cast<std::uint16_t>(c.cell.h), c.reject_threshold});
            tables.insert(tables.end(), c.responses.begin(), c.responses.end());
        }
        tables_.reserve(tables.size());
        CK(cudaMemcpy(tables_.p, tables.data(), tables.size() * sizeof(float), cudaMemcpyHostToDevice));
        // Part ends: the boundaries inside the sequence, then its end; no part longer than kLargePart.
        const int n = static_cast<int>(weak_.size());
        std::vector<int> cuts = options.lbp_boundaries;
        std::sort(cuts.begin(), cuts.end());
        int begin = 0;
        for (int cut : cuts) {
            if (cut <= begin || cut >= n) continue;
            while (cut - begin > kLargePart) ends_.push_back(begin += kLargePart);
            ends_.push_back(begin = cut);
        }
        while (n - begin > kLargePart) ends_.push_back(begin += kLargePart);
        ends_.push_back(n);
    }
    std::uint32_t weak_per_window() const override { return 0; }  // counted on the device
    bool heavy() const override { return false; }
    int parts() const override { return static_cast<int>(ends_.size()); }
    std::uint32_t weak_after(int part) const override { return static_cast<std::uint32_t>(ends_[static_cast<std::size_t>(part)]); }
    void launch(const SurvivorArgs& s, const FrameFeatures& f, int part, int grid_limit, cudaStream_t stream) const override {
        const int first = part == 0 ? 0 : ends_[static_cast<std::size_t>(part) - 1];
        const int count = ends_[static_cast<std::size_t>(part)] - first;
        const int last = part + 1 == parts() ? 1 : 0;
        switch (threads_) {
            case 64: return launch_part<64>(s, f, first, count, last, grid_limit, stream);
            case 128: return launch_part<128>(s, f, first, count, last, grid_limit, stream);
            case 512: return launch_part<512>(s, f, first, count, last, grid_limit, stream);
            default: return launch_part<256>(s, f, first, count, last, grid_limit, stream);
        }
    }

private:
    template <int Threads>
    void launch_part(const SurvivorArgs& s, const FrameFeatures& f, int first, int count, int last, int grid_limit,
                     cudaStream_t stream) const {
        // Grid: every window for the frame's first launch; later launches (fewer survivors, their
        // count known only on the device) loop over them with a few waves of blocks.
        const bool warp = first >= warp_from_;
        const int all = blocks_for(static_cast<std::size_t>(s.n_windows) * (warp ? 32 : 1), Threads);
        const int grid = grid_limit > 0 ? std::min(all, grid_limit * kThreads / Threads) : all;
        if (count <= kSmallPart) launch_cap<kSmallPart, Threads>(s, f, first, count, last, grid, warp, stream);
        else launch_cap<kLargePart, Threads>(s, f, first, count, last, grid, warp, stream);
    }
    template <int Cap, int Threads>
    void launch_cap(const SurvivorArgs& s, const FrameFeatures& f, int first, int count, int last, int grid, bool warp,
                    cudaStream_t stream) const {
        Part<Cap> p{};
        p.first = first;
        p.count = count;
        p.last = last;
        p.final_threshold = final_;
        std::copy(weak_.begin() + first, weak_.begin() + first + count, p.weak);
        if (warp) lbp_part_warp_kernel<Cap, Threads><<<grid, Threads, 0, stream>>>(s, f.gray, tables_.p, p);
        else lbp_part_kernel<Cap, Threads><<<grid, Threads, 0, stream>>>(s, f.gray, tables_.p, p);
        CK_LAUNCH();
    }

    float final_;
    int threads_, warp_from_;
    std::vector<DevWeak> weak_;
    DeviceBuffer<float> tables_;
    std::vector<int> ends_;  // the weak-classifier count at the end of each part
};

bool fits_records(const WaldBoostLbpStage& stage, std::string* why) {
    for (const LbpWeakClassifier& c : stage.weak)
        if (c.cell.x > 0xffff || c.cell.y > 0xffff || c.cell.w > 0xffff || c.cell.h > 0xffff) {
            if (why) *why = "an LBP cell lies beyond 65535 window pixels";
            return false;
        }
    return true;
}
}  // namespace

CudaStageKind waldboost_lbp_cuda_kind() {
    FeatureNeeds needs;
    needs.gray_integral = true;
    return {WaldBoostLbpStage::kKind, needs,
            [](const Stage& s, const CascadeModel&, const CudaOptions& o) -> std::unique_ptr<CudaStage> {
                const WaldBoostLbpStage& stage = s.as<WaldBoostLbpStage>();
                std::string why;
                if (!fits_records(stage, &why)) throw DetectError("the CUDA backend cannot run this waldboost_lbp stage: " + why);
                return std::make_unique<WaldBoostLbpCudaStage>(stage, o);
            }};
}

}  // namespace cascadekit::cuda
