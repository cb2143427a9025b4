#pragma once
// Many images through one model: images in, each image's DetectResult out, handed over in input
// order. The one bulk path of cascadekit: `cascade detect`, evaluation and the trainer's
// bootstrapping all run through it.
//
//   CPU:  images of a chunk run in parallel (TBB), one Detector per worker thread; each detect()
//         runs in an isolated task arena, so a thread waiting in its detector's own parallel loop
//         never starts another image on the same (busy) detector.
//   CUDA: one Detector on the chosen device; a chunk goes to detect_batch, which keeps up to
//         `in_flight` frames in flight on their own streams.
// Results are the same on every backend and for any thread count (each is one image's detect()).
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "cascadekit/runtime/detector.hpp"

namespace cascadekit {

// Memory stays bounded whatever the images' sizes: a chunk of images is loaded at a time, as
// many as fit max_chunk_megapixels by the largest image seen so far (at least one, at most
// `chunk`), and images of alone_megapixels or more are detected one at a time on one detector
// (which parallelises inside: several pyramid levels in flight on the CPU) rather than one per
// thread or several in flight. On the CPU the others are detected a whole image a worker thread,
// each thread's detector taking one level at a time: its storage grows to the largest image it
// saw (about 40 MB a megapixel for HoG models, 6 for LBP ones), so by default the images so
// detected together hold at most max_chunk_megapixels in all. A chunk's only image that could
// go with others is detected alone.
struct BulkOptions {
    Backend backend = Backend::Auto;
    int device = 0;                     // CUDA device index
    int in_flight = 4;                  // CUDA frames in flight (detect_batch)
    std::size_t chunk = 0;              // most images loaded and detected together; 0 = 8 per worker thread
    double max_chunk_megapixels = 64;   // pixels loaded at once (by the largest image seen)
    // 0: on the CPU, max_chunk_megapixels over the worker threads (at least 1: with 16 threads
    // and the default 64, frames up to 4 megapixels go a frame a thread, which measured 91–106 %
    // of 16 independent one-thread detectors against 34–69 % for one frame at a time on 16
    // threads); 16 on the GPU.
    double alone_megapixels = 0;
};

// An image to detect in, and whatever keeps its pixels alive (null when the caller owns them).
struct BulkImage {
    ImageView view;
    std::shared_ptr<const void> owner;
};

struct BulkTotals {
    std::size_t images = 0, failed = 0;
    DetectStats stats;  // summed over the images that were served (rejected_per_stage per stage)
    // Wall time of the run's phases: loading the chunks, detecting in them (with the GPU's
    // results put in order, and run()'s `prepare`), and the consumer's calls.
    double load_seconds = 0, detect_seconds = 0, consume_seconds = 0;
};

// Thread safety: one run() at a time per BulkDetector; run() parallelises inside.
class BulkDetector {
public:
    // Validates and builds the detector(s) now: a bad model, parameters or backend throw here.
    BulkDetector(const CascadeModel& model, const DetectParams& params, BulkOptions options = {});
    ~BulkDetector();
    BulkDetector(const BulkDetector&) = delete;
    BulkDetector& operator=(const BulkDetector&) = delete;

    // Loads image i (from worker threads, concurrently for different i).
    using Loader = std::function<BulkImage(std::size_t index)>;
    // Receives image i's result, for i = 0, 1, … in order, from one thread at a time, with the
    // image (alive until the call returns) and the milliseconds its detection took (for a
    // batch on the GPU: the batch's time over its images).
    using Consumer = std::function<void(std::size_t index, DetectResult&& result, const BulkImage& image, double ms)>;
    // Receives an image that could not be served: the loader threw, or detect() threw DetectError
    // (e.g. an image smaller than the window); in input order among the results. Without one,
    // the first failure is rethrown. DeviceError (a CUDA fault) always stops the run.
    using Failure = std::function<void(std::size_t index, const std::string& message)>;

    // Asked after each chunk: true ends the run early (images not yet loaded are skipped). A
    // consumer that ignores what comes after it is satisfied keeps the outcome independent of
    // where chunks end.
    using Stop = std::function<bool()>;

    // Receives each served image's result before the consumer does, from worker threads, several
    // images at once and in no order: per-image work that needs no order (the trainer turns
    // its millions of accepted windows into its own records here), off the consumer's thread.
    using Prepare = std::function<void(std::size_t index, DetectResult& result, const BulkImage& image)>;

    // `keep` (frame: the image's index) keeps only some of each image's detections (KeepRanks),
    // before prepare and the consumer see them; on the GPU only those are made.
    BulkTotals run(std::size_t count, const Loader& load, const Consumer& consume, const Failure& failed = {},
                   const Stop& stop = {}, const Prepare& prepare = {}, const KeepRanks& keep = {});

    // One image on the run's first detector (the CUDA one, or a CPU one with every level in
    // flight): Detector::detect's result and errors.
    DetectResult detect(const ImageView& image);

    std::string backend_name() const;
    const CascadeModel& model() const;
    const DetectParams& params() const;

private:
    struct Impl;
    struct Run;  // one run()'s chunks (bulk_detector.cpp)
    std::unique_ptr<Impl> impl_;
};

}  // namespace cascadekit
