#pragma once
#include <array>
#include <optional>
// The subcommands of `cascade`. Each returns the process exit code:
// 0 success; 1 the command could not run (bad model, bad option, output not writable);
// 2 it ran but some inputs failed (each reported by name).
#include <string>
#include <vector>

#include "cascadekit/eval/calibration.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/fusion.hpp"
#include "cascadekit/runtime/object_detector.hpp"

namespace cascadekit::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFatal = 1;
inline constexpr int kExitSomeInputsFailed = 2;

struct DetectOptions {
    std::string model;
    std::vector<std::string> inputs;
    DetectParams params;
    FusionParams fusion;
    Backend backend = Backend::Auto;
    int device = 0;           // CUDA device
    std::string json;         // empty: no JSON
    std::string draw_dir;     // empty: no drawings
    long long max_frames = 0; // per video; 0 = all
    // What the command line gave of the operating point: each replaces the model's value
    // (runtime/object_detector.hpp applies them). params' max_scale and CPU-only scans, fusion's
    // bandwidths, min_neighbors, min_size / max_size and window_boxes are read as given; the other
    // fields of params, fusion, threshold and pad only hold the options' values until then.
    PointOverrides point;
    // Boxes: the object's box inside each window (the model's object box), or the window itself.
    bool window_boxes = false;
    double threshold = 0;
    int min_neighbors = 0;
    double min_size = 0, max_size = 0;
    // Replicated border around each image, as a share of its height, so that windows reach past
    // the edges (objects cut by the frame, or filling it); boxes are in the unpadded image.
    double pad = 0;
    // COCO results (a JSON array of {image_id, category_id, bbox, score}); image ids from the
    // COCO annotation file's images (matched by file name), else 1, 2, … in input order.
    std::string coco, coco_annotations;
    int coco_category = 1;
};
int run_detect(const DetectOptions& options);

// cascade crop: positives cut from an annotated set.
struct CropOptions {
    std::string annotations, format = "auto", object_class, images, out;
    int window_width = 64, window_height = 128;
    // Where the object's box sits in the window, as fractions (x, y, w, h) of it: INRIA's people
    // (a person 0.75 of the window tall, centred; PennFudan's boxes 0.38 as wide as tall).
    std::array<double, 4> object{0.215, 0.125, 0.57, 0.75};
    double min_height = 0;   // boxes shorter than this (pixels) are skipped; 0: half the object's height in the window
    double max_aspect = 2;   // boxes whose aspect differs from the object box's by more than this factor are skipped
};
int run_crop(const CropOptions& options);

struct TrainCommandOptions {
    std::string config;
    std::string out;
    bool resume = false;
    bool finish = false;  // with resume: end the run with the stage in training as it stands
    int stop_after_rounds = 0;
    std::string backend;  // overrides the config's mining.backend when set
};
int run_train(const TrainCommandOptions& options);

struct EvalOptions {
    bool fuse_detections = false;  // --detections holds raw windows: fuse them as --fuse says
    std::string model, window_scores, detections;  // exactly one: what is evaluated
    std::string config = "configs/inria-hog-cascade.yaml";  // data and held-out split
    bool config_given = false;  // --config given: else a --model's stored configuration comes first
    std::string fppw, rejection, fppi;               // CSV outputs; each asks for that evaluation
    std::string survival;                            // CSV: windows surviving each weak classifier
    std::string pennfudan;                           // default $CASCADEKIT_DATA/PennFudanPed
    std::string faces;                               // --faces CSV: FPPI on CMU+MIT frontal faces
    std::string cmu_mit;                             // default $CASCADEKIT_DATA/Faces/cmu-mit
    std::string face_match = "points";               // --faces matching: points (any box convention) or iou
    double min_scale = 1.0;                          // smallest window scale of full-image scans
    int level_pad = 0;                               // their border on every pyramid level (--pad-level)
    // Their scan's approximations (--scale-windows, --approximate-hog, --approximate-lbp): only
    // DetectParams' scale_windows, approximate_hog and approximate_lbp are read from it.
    DetectParams scan;
    int upscale_below = 0;                           // images less tall are enlarged 2× first (--upscale-below)
    std::string write_lists;                         // folder for the held-out and PennFudan lists
    std::string label;
    int stride = 8;
    double scale_step = 1.2;
    // --annotations: any annotated set in a labelling tool's format (io/annotations.hpp).
    std::string annotations, format = "auto", object_class, images, curve;
    std::string plot;                  // --annotations: the FPPI curve as a PNG
    std::vector<std::string> compare;  // NAME=CSV: earlier --curve files drawn on the same plot
    std::string box = "auto";  // detections as boxes: window, person (64×128 people windows), auto
    double pad = 0.25;  // PennFudan: replicated border on every side, as a share of the image height
    FusionParams fusion;  // PennFudan: how windows are fused (method from --fuse, default nms)
    Backend backend = Backend::Auto;  // detector for --model scans
    int device = 0;                   // its CUDA device
};
int run_eval(const EvalOptions& options);

// cascade calibrate: the model's operating point chosen on annotated images (calibrate_command.cpp).
struct CalibrateOptions {
    std::string model, out;
    std::string annotations, format = "auto", object_class, images;  // an annotated set, or
    bool faces = false;                                              // CMU+MIT's frontal faces
    std::string cmu_mit;                                             // default $CASCADEKIT_DATA/Faces/cmu-mit
    double fppi = 0.1;  // the threshold keeps at most this many false positives per image
    // The scan and fusion the threshold is chosen for; unset: the model's current operating point.
    PointOverrides point;
    Backend backend = Backend::Auto;
    int device = 0;
};
int run_calibrate(const CalibrateOptions& options);
// Prints a calibration's figures on its two halves (calibrate and train).
void print_calibration(const CalibrationReport& report);


struct InspectOptions {
    std::string model;  // empty with pool set
    std::string draw;   // PNG path
    std::string pool;   // block pool name
    std::vector<int> stages;  // stages to draw (1-based); empty = all
    int weak = 0;             // > 0: draw the first `weak` weak classifiers of a WaldBoost stage instead
    std::string background;   // with weak: an image drawn (resized to the window) under each panel
};
int run_inspect(const InspectOptions& options);

// Re-saves a trusted model file (schema 1, or schema 2 edited with HDF5 tools) as schema 2 with
// a fresh integrity header.
struct ConvertOptions {
    std::string in, out;
    int stages = 0;  // > 0: keep only the first this many stages
};
int run_convert(const ConvertOptions& options);

struct BenchFeaturesOptions {
    std::vector<std::string> sizes{"320x240", "640x480", "1280x960", "1920x1080"};
    int repeats = 9;
    std::string out;       // Markdown file; empty: stdout only
    bool opencv_peer = true;
    std::string command_line;
};
int run_bench_features(const BenchFeaturesOptions& options);

struct BenchDetectOptions {
    std::string model = "models/inria-hog-cascade.h5";
    std::string backend = "auto";  // cuda (or auto with a device): GPU rows too; cpu: CPU and peer only
    std::vector<std::string> sizes{"320x240", "640x480", "1280x960", "1920x1080"};
    std::vector<double> scale_steps{1.05, 1.1, 1.2};
    std::vector<int> strides{8, 4};
    double min_scale = 1.0;  // DetectParams::min_scale
    double max_scale = 0.0;  // DetectParams::max_scale (0: until the level is smaller than the window)
    int lbp_weak = 0;        // > 0: pad the last WaldBoost sequence to this many weak classifiers
    int repeats = 20;      // GPU frames per median
    int cpu_repeats = 3;   // CPU and OpenCV frames per median
    int batch = 16;        // frames per detect_batch call
    int slots = 4;         // frames in flight in a batch
    std::string frame;     // image resized to every size; empty: synthetic
    std::string peer;      // opencv_hog_peer or opencv_face_peer executable; empty: no OpenCV rows
    std::string peer_args;  // extra arguments to the peer's time mode (e.g. --cascade FILE)
    std::string peer_name = "OpenCV HOG";  // its name in the tables
    bool no_cpu = false;   // skip timing our CPU backend
    // Our CPU rows' scan approximations (DetectParams' scale_windows, approximate_hog and
    // approximate_lbp, the only members read; no CUDA rows then).
    DetectParams scan;
    std::vector<int> cpu_threads;  // also time the CPU backend (and the peer) at these thread counts: a scaling table
    int cpu_levels = 0;    // CpuOptions::levels_in_flight of our CPU rows; 0: the default
    double cpu_level_mib = -1;  // CpuOptions::level_memory_in_flight of our CPU rows, MiB; < 0: the default
    std::string out;       // Markdown file
    std::string command_line;
};
int run_bench_detect(const BenchDetectOptions& options);

}  // namespace cascadekit::tools
