#include "cascadekit/runtime/detector.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "cascadekit/features/pyramid.hpp"

#include "cascadekit/runtime/cpu_detector.hpp"
#if CASCADEKIT_HAVE_CUDA
#include "cascadekit/runtime/cuda_detector.hpp"
#endif

namespace cascadekit {

DetectParams detect_params(const OperatingPoint& point) {
    DetectParams p;
    p.stride = point.stride;
    p.scale_step = decimal_value(point.scale_step);
    p.min_scale = decimal_value(point.min_scale);
    p.level_pad = point.level_pad;
    return p;
}

void validate(const DetectParams& p) {
    if (p.level_pad < 0 || p.level_pad > 256)
        throw std::invalid_argument("level pad must be in [0, 256] pixels, got " + std::to_string(p.level_pad));
    if (p.stride < 1) throw std::invalid_argument("stride must be >= 1, got " + std::to_string(p.stride));
    // Bounded work: a step of 1.001 would make thousands of levels of nearly the input's size.
    if (!(p.scale_step >= kMinScaleStep && p.scale_step <= kMaxScaleStep))
        throw std::invalid_argument("scale step must be in [1.01, 10], got " + std::to_string(p.scale_step));
    // Bounded memory: below 1 the input is enlarged by 1/min_scale on each side.
    if (!(p.min_scale >= kMinMinScale) || !std::isfinite(p.min_scale))
        throw std::invalid_argument("min scale must be >= 1/16 (an input enlarged at most 16 times), got " +
                                    std::to_string(p.min_scale));
    if (!std::isfinite(p.max_scale) || p.max_scale < 0.0 || (p.max_scale > 0.0 && p.max_scale < p.min_scale))
        throw std::invalid_argument("max scale must be 0 (no limit) or >= min scale, got " + std::to_string(p.max_scale));
    if (p.scale_windows && p.approximate_hog)
        throw std::invalid_argument("scale_windows and approximate_hog (--scale-windows, --approximate-hog) are two different scans: ask for one of them");
    if (p.scale_windows && p.approximate_lbp)
        throw std::invalid_argument("scale_windows and approximate_lbp (--scale-windows, --approximate-lbp) are two different scans: ask for one of them");
}

const char* cpu_only_scan(const DetectParams& p) {
    if (p.scale_windows) return "--scale-windows";
    if (p.approximate_hog) return "--approximate-hog";
    if (p.approximate_lbp) return "--approximate-lbp";
    return nullptr;
}

std::string window_fit_problem(int width, int height, int window_width, int window_height, const DetectParams& p) {
    if (!plan_pyramid(width, height, window_width, window_height, p.scale_step, p.min_scale, p.max_scale, p.level_pad).empty())
        return {};
    std::ostringstream out;  // default formatting: 0.75, not 0.750000
    out << "image " << width << "x" << height << " is smaller than the model window " << window_width << "x" << window_height
        << " at scale " << p.min_scale;
    if (p.level_pad > 0) out << " with " << p.level_pad << " px of level padding";
    if (p.min_scale < 1.0) out << " (a min scale below 1 upscales the image)";
    else out << " (a min scale below 1 would upscale it)";
    return out.str();
}

std::string to_string(Backend b) { return std::string(kBackendNames.name(b)); }
bool parse_backend(const std::string& text, Backend& out) { return kBackendNames.parse(text, out); }

std::vector<DetectResult> Detector::detect_batch(const std::vector<ImageView>& images, int /*in_flight*/) {
    std::vector<DetectResult> out;
    out.reserve(images.size());
    for (const ImageView& im : images) out.push_back(detect(im));
    return out;
}

std::vector<DetectResult> Detector::detect_batch(const std::vector<ImageView>& images, int in_flight, const KeepRanks& keep) {
    std::vector<DetectResult> out = detect_batch(images, in_flight);
    if (keep)
        for (std::size_t i = 0; i < out.size(); ++i) keep_ranks(out[i], keep(i, out[i].detections.size()));
    return out;
}

void keep_ranks(DetectResult& result, const std::vector<std::uint32_t>& ranks) {
    std::vector<Detection> kept;
    kept.reserve(ranks.size());
    std::vector<bool> taken(result.detections.size(), false);
    for (std::uint32_t r : ranks) {
        take_rank(r, result.detections.size(), taken);
        kept.push_back(result.detections[r]);
    }
    result.detections = std::move(kept);
}

void take_rank(std::uint32_t rank, std::size_t count, std::vector<bool>& taken) {
    if (rank >= count)
        throw std::out_of_range("kept rank " + std::to_string(rank) + " of " + std::to_string(count) + " detections");
    if (taken[rank]) throw std::invalid_argument("kept rank " + std::to_string(rank) + " given twice");
    taken[rank] = true;
}

std::future<void> warm_up(Backend backend, int device) {
#if CASCADEKIT_HAVE_CUDA
    if (backend != Backend::Cpu)
        return std::async(std::launch::async, [device] { cuda_warm_up(device); });
#else
    (void)backend;
    (void)device;
#endif
    std::promise<void> done;
    done.set_value();
    return done.get_future();
}

std::unique_ptr<Detector> Detector::create(const CascadeModel& model, const DetectParams& params, Backend backend,
                                           int device) {
    validate_model(model);
    validate(params);
#if CASCADEKIT_HAVE_CUDA
    CudaOptions options;
    options.device = device;
    if (backend == Backend::Cuda) return std::make_unique<CudaDetector>(model, params, options);
    // Auto: CUDA when a device is present and it runs every stage kind of the model and the scan
    // (not a cpu_only_scan); otherwise the CPU, which gives the same detections.
    if (backend == Backend::Auto && !cpu_only_scan(params) && CudaDetector::supports(model) && cuda_available())
        return std::make_unique<CudaDetector>(model, params, options);
#else
    (void)device;
    if (backend == Backend::Cuda)
        throw DetectError("the CUDA backend is not part of this build (configure with CASCADEKIT_CUDA=ON and the CUDA toolkit)");
#endif
    return std::make_unique<CpuDetector>(model, params);
}

}  // namespace cascadekit
