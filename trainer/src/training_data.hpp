#pragma once
// Internal: loading positives, negative images and window references for the trainer.
#include <cstdint>
#include <functional>
#include <vector>

#include "cascadekit/runtime/window_evaluator.hpp"
#include "cascadekit/trainer/random.hpp"
#include "cascadekit/trainer/trainer.hpp"

namespace cascadekit::detail {

// A window of a negative image: which image, at which pyramid scale, where in that level.
struct WindowRef {
    std::uint32_t image = 0;
    std::uint32_t reserved = 0;  // the padding before scale, named so that checkpoints hold zeros there, not stray bytes
    double scale = 1.0;
    std::int32_t x = 0, y = 0;
};
static_assert(sizeof(WindowRef) == 24, "the checkpoint's WindowRef is 24 bytes (docs/checkpoint.md)");

// Which negative windows may be used: annotated images' windows must keep clear of their
// objects (negative_window_allowed). An empty function allows every window.
using WindowFilter = std::function<bool(const WindowRef&)>;
// The filter for `images` (load_images' order, transforms included) of `data`: each image's
// keep-clear boxes, carried through its transform. Empty when no image has any.
WindowFilter keep_clear_filter(const Dataset& data, const std::vector<Image>& images,
                               const std::vector<ImageTransform>& transforms, const TrainConfig& cfg);

// An annotated image's region (image pixels, replicated past the edges) resampled to w × h:
// each output pixel the area average of the source it covers when shrinking, bilinear when
// enlarging (per axis).
GrayImage cut_region(const GrayImage& image, const Box& region, int w, int h);

// Receives one window of a level's features: (slot, features, x, y). Called from many threads
// at once, each slot once.
using WindowSink = std::function<void(std::size_t, const LevelFeatures&, int, int)>;

// Decodes every image in parallel (TBB); throws TrainError naming the first file that fails.
// Each image keeps its colour when `colour` (HogParams::channels), else becomes gray (keep_channels).
// With transforms, the decoded images are followed by each transform of all of them, in the
// order given (image k of transform t is at (t + 1)·paths.size() + k).
std::vector<Image> load_images(const std::vector<std::filesystem::path>& paths, const ImageLoader& loader,
                                   const std::vector<ImageTransform>& transforms = {}, bool colour = false);

// boosting.calibration_every = every: 1 for each of the `count` loaded positives (load_crops'
// order: the crops, then their jittered copies) whose crop comes from every `every`th source photo
// (make_every_kth_split's rule: the 2nd, 4th, … source in sorted order for 2), so that a person,
// its mirror image and its jittered copies are on one side. Empty when every is 0.
std::vector<std::uint8_t> calibration_mask(const std::vector<PositiveCrop>& crops, std::size_t count, int every);

// Decodes the positive crops (mirrored where asked), followed by data.jitter_copies jittered
// copies of all of them (copy k of crop i at (k + 1)·crops.size() + i; drawn by the run's seed).
// Crops smaller than the window are refused with a TrainError naming the file. Colour as for
// load_images; every operation treats each channel alike.
std::vector<Image> load_crops(const std::vector<PositiveCrop>& crops, const ImageLoader& loader, int ww, int wh,
                                  const DataConfig& data = {}, std::uint64_t seed = 0, bool colour = false);

// The crop turned by `degrees`, scaled by `scale` and shifted by (dx, dy) pixels about its
// centre (bilinear, edges replicated), the same size.
GrayImage jittered(const GrayImage& crop, double degrees, double scale, double dx, double dy);
// The crop reduced by `factor` (≥ 1; each small pixel the mean of the source pixels it covers)
// and enlarged back to its size by bilinear interpolation: the detail a photo `factor` times
// smaller would have kept.
GrayImage low_res(const GrayImage& crop, double factor);

// Hands each crop's centred window to sink(i, …) with the features `needs` asks for (HoG
// planes from `gradient`, HogParams::gradient(); from the colour planes of 3-channel crops).
// The first `count` crops (all when count exceeds their number), slot i for crop i.
void visit_positives(const std::vector<Image>& crops, FeatureNeeds needs, GradientParams gradient, int ww, int wh,
                     const WindowSink& sink, std::size_t count = SIZE_MAX);

// Hands window refs[i] to sink(first_slot + i, …), recomputing each needed pyramid level of each
// image once (resampling and features as the detector does them, FramePyramid; colour planes
// for 3-channel images). Parallel over images, deterministic.
void visit_windows(const std::vector<WindowRef>& refs, const std::vector<Image>& images, std::size_t first_slot,
                   FeatureNeeds needs, GradientParams gradient, const WindowSink& sink);

// `count` windows drawn uniformly: an image, then a level of its pyramid (scale step
// `scale_step`), then a position.
// With `allowed`, a refused draw is drawn again (at most 1000 times, then left out).
std::vector<WindowRef> random_windows(const std::vector<Image>& images, std::size_t count, int ww, int wh,
                                      double scale_step, RandomStream rng, const WindowFilter& allowed = {});

// `target` of refs chosen uniformly without replacement, in their original order: the refs at
// first_of_shuffle(refs.size(), target, rng) (all of them when there are no more than target).
// rest, when given, receives the refs not chosen, in their original order too.
std::vector<WindowRef> subsample(const std::vector<WindowRef>& refs, std::size_t target, RandomStream rng,
                                 std::vector<WindowRef>* rest = nullptr);

// The first t ≤ n entries of the Fisher-Yates shuffle of 0 .. n−1 that swaps entry i with entry
// i + rng.below(n − i) for i = 0, 1, …: subsample's draw, which bootstrapping also makes from an
// image's count of accepted windows alone (KeepRanks). Keeps only the moved entries, not n.
std::vector<std::uint32_t> first_of_shuffle(std::size_t n, std::size_t t, RandomStream rng);

}  // namespace cascadekit::detail
