#include <spdlog/spdlog.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>
#if CASCADEKIT_TOOLS_CODECS
#include <opencv2/videoio.hpp>
#endif
#include <map>
#include <set>

#include "cascadekit/io/files.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/object_detector.hpp"
#include "commands.hpp"
#include "cascadekit/workflow/image_files.hpp"
#include "inputs.hpp"
#include "output_files.hpp"

namespace cascadekit::tools {

namespace {
using Clock = std::chrono::steady_clock;

// Rate-limited progress on stderr: counts, rate and ETA.
class Progress {
public:
    explicit Progress(std::size_t total) : total_(total), start_(Clock::now()), last_(start_) {}
    void step(std::size_t done, const std::string& what) {
        const auto now = Clock::now();
        if (total_ <= 1 || (now - last_ < std::chrono::seconds(2) && done != total_)) return;
        last_ = now;
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        const double d = static_cast<double>(done), t = static_cast<double>(total_);
        const double rate = elapsed > 0 ? d / elapsed : 0.0;
        const double eta = rate > 0 && t > d ? (t - d) / rate : 0.0;
        spdlog::info("{}/{} {} ({:.0f}%), {:.1f}/s, ETA {:.0f} s", done, total_, what, 100.0 * d / t, rate, eta);
    }

private:
    std::size_t total_;
    Clock::time_point start_, last_;
};

// JSON numbers at a sensible precision: boxes to 1/100 pixel, scores to 1e-4.
double rounded(double v, double step) { return std::round(v / step) * step; }

// How the model's operating point was chosen, for the reports.
std::string operating_point_source(const CascadeModel& m) {
    return m.operating.chosen_on.empty() ? "detector defaults" : m.operating.chosen_on;
}

ImageView view_of(const cv::Mat& m) {
    return {m.data, m.cols, m.rows, static_cast<std::ptrdiff_t>(m.step[0]), m.channels(), ChannelOrder::BGR};
}

// Names drawings after the input's stem, unique within the run.
class DrawNames {
public:
    std::string take(const std::string& stem) {
        std::string name = stem;
        for (int n = 2; used_.count(name); ++n) name = stem + "-" + std::to_string(n);
        used_.insert(name);
        return name;
    }

private:
    std::set<std::string> used_;
};

// --coco-annotations: image ids by file name, from the annotation file's "images".
std::map<std::string, std::int64_t> coco_image_ids(const std::string& file) {
    std::map<std::string, std::int64_t> ids;
    if (file.empty()) return ids;
    nlohmann::json ann;
    try {
        ann = nlohmann::json::parse(read_text_file(file, "COCO annotation file"));
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(file + ": not valid JSON: " + e.what());
    }
    if (!ann.is_object() || !ann.contains("images") || !ann["images"].is_array())
        throw std::runtime_error(file + ": not a COCO annotation file (no \"images\" array)");
    for (const auto& im : ann["images"])
        if (im.is_object() && im.contains("id") && im["id"].is_number_integer() && im.contains("file_name") &&
            im["file_name"].is_string())
            ids[std::filesystem::path(im["file_name"].get<std::string>()).filename().string()] = im["id"].get<std::int64_t>();
    if (ids.empty()) throw std::runtime_error(file + ": no image with an integer id and a file_name");
    return ids;
}

class DetectRun {
public:
    DetectRun(const DetectOptions& o, ObjectDetector& detector, std::map<std::string, std::int64_t> coco_ids)
        : o_(o), detector_(detector), coco_ids_(std::move(coco_ids)) {
        const DetectParams& scan = detector.operation().scan;
        const BoxSettings& boxes = detector.operation().boxes;
        json_["model"] = o.model;
        json_["backend"] = detector.backend_name();
        json_["params"] = {{"stride", scan.stride},         {"scale_step", scan.scale_step},
                           {"min_scale", scan.min_scale},   {"max_scale", scan.max_scale},
                           {"fuse", to_string(boxes.fusion.method)}, {"nms_iou", boxes.fusion.nms_iou},
                           {"sigma_x", boxes.fusion.sigma_x},       {"sigma_y", boxes.fusion.sigma_y},
                           {"sigma_s", boxes.fusion.sigma_s},       {"threshold", boxes.threshold},
                           {"min_neighbors", boxes.min_neighbors},  {"pad", boxes.pad}, {"level_pad", scan.level_pad},
                           {"scale_windows", scan.scale_windows},
                           {"approximate_hog", scan.approximate_hog},
                           {"approximate_lbp", scan.approximate_lbp},
                           {"boxes", boxes.window_boxes ? "window" : "object"}};
        const ObjectBox& b = detector.model().object_box;
        json_["object_box"] = {decimal_value(b.x), decimal_value(b.y), decimal_value(b.w), decimal_value(b.h)};
        json_["operating_point"] = operating_point_source(detector.model());
        json_["images"] = nlohmann::json::array();
        json_["errors"] = nlohmann::json::array();
    }

    void fail(const std::string& path, std::string problem) {
        if (problem.rfind(path + ": ", 0) == 0) problem.erase(0, path.size() + 2);  // errors that name the file already
        spdlog::error("{}: {}", path, problem);
        json_["errors"].push_back({{"path", path}, {"error", problem}});
        ++failures_;
    }

    // One detection of an image or a video frame (frame < 0 for still images).
    void process(const cv::Mat& bgr, const ObjectResult& r, double ms, const std::string& path, long long frame) {
        nlohmann::json entry{{"path", path}, {"width", bgr.cols}, {"height", bgr.rows}};
        if (frame >= 0) entry["frame"] = frame;
        auto& dets = entry["detections"] = nlohmann::json::array();
        for (const FoundObject& f : r.objects) {
            const Box& b = f.box;
            const Detection& d = f.window;
            dets.push_back({{"x", rounded(b.x, 0.01)}, {"y", rounded(b.y, 0.01)}, {"w", rounded(b.w, 0.01)},
                            {"h", rounded(b.h, 0.01)}, {"score", rounded(d.score, 1e-4)}, {"windows", d.support},
                            {"window", {rounded(d.x, 0.01), rounded(d.y, 0.01), rounded(d.w, 0.01), rounded(d.h, 0.01)}}});
        }
        if (!o_.coco.empty() && !add_coco(r, path)) return;
        entry["stats"] = {{"windows_scanned", r.stats.windows_scanned},
                          {"rejected_per_stage", r.stats.rejected_per_stage},
                          {"weak_evaluated", r.stats.weak_evaluated},
                          {"raw_detections", r.raw_windows},
                          {"levels", r.stats.levels},
                          {"milliseconds", ms}};
        json_["images"].push_back(std::move(entry));
        total_windows_ += r.stats.windows_scanned;
        total_detections_ += r.objects.size();
        if (!o_.draw_dir.empty()) draw(bgr, r.objects, path, frame);
    }

    // The image's boxes as COCO results; false (and the image failed) when --coco-annotations
    // does not know it.
    bool add_coco(const ObjectResult& r, const std::string& path) {
        std::int64_t id = ++coco_sequence_;
        if (!coco_ids_.empty()) {
            const auto it = coco_ids_.find(std::filesystem::path(path).filename().string());
            if (it == coco_ids_.end()) {
                fail(path, "not among the images of " + o_.coco_annotations + " (--coco-annotations)");
                return false;
            }
            id = it->second;
        }
        for (const FoundObject& f : r.objects)
            coco_.push_back({{"image_id", id},
                             {"category_id", o_.coco_category},
                             {"bbox", {rounded(f.box.x, 0.01), rounded(f.box.y, 0.01), rounded(f.box.w, 0.01), rounded(f.box.h, 0.01)}},
                             {"score", rounded(f.window.score, 1e-4)}});
        return true;
    }

    // Decoded frames through the detector, in order. A frame that cannot be served is reported
    // by name; a device failure stops the whole run (DeviceError propagates).
    void detect_frames(std::size_t count, const std::function<cv::Mat(std::size_t)>& decode,
                       const std::function<std::string(std::size_t)>& name, const std::function<long long(std::size_t)>& frame) {
        detector_.run(
            count,
            [&](std::size_t i) {
                auto m = std::make_shared<cv::Mat>(decode(i));
                const int pad = pad_pixels(detector_.operation().boxes.pad, m->rows);
                check_scan_size(m->cols + 2.0 * pad, m->rows + 2.0 * pad, detector_.operation().scan.min_scale);
                return BulkImage{view_of(*m), m};
            },
            [&](std::size_t i, ObjectResult&& r, const BulkImage& image, double ms) {
                process(*static_cast<const cv::Mat*>(image.owner.get()), r, ms, name(i), frame(i));
            },
            [&](std::size_t i, const std::string& message) {
                std::string where = name(i);
                if (frame(i) >= 0) where.append("#").append(std::to_string(frame(i)));
                fail(where, message);
            });
    }

    void draw(const cv::Mat& bgr, const std::vector<FoundObject>& objects, const std::string& path, long long frame) {
        cv::Mat canvas = bgr.clone();
        for (const FoundObject& f : objects) {
            const cv::Rect box(cvRound(f.box.x), cvRound(f.box.y), cvRound(f.box.w), cvRound(f.box.h));
            cv::rectangle(canvas, box, cv::Scalar(0, 255, 0), 2);
            char label[32];
            std::snprintf(label, sizeof label, "%.2f", f.window.score);
            cv::putText(canvas, label, {box.x + 2, box.y + 14}, cv::FONT_HERSHEY_SIMPLEX, 0.45, cv::Scalar(0, 255, 0), 1);
        }
        std::string stem = std::filesystem::path(path).stem().string();
        if (frame >= 0) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "_f%06lld", frame);
            stem += buf;
        }
        const std::filesystem::path target = std::filesystem::path(o_.draw_dir) / (names_.take(stem) + ".png");
        try {
            write_image(target, canvas);
        } catch (const std::exception& e) {
            fail(path, e.what());
        }
    }

    void run(const std::vector<InputItem>& items) {
        Progress progress(items.size());
        std::size_t done = 0;
        for (std::size_t i = 0; i < items.size();) {
            if (items[i].kind != InputKind::Image) {
                run_video(items[i].path.string());
                progress.step(++done, "inputs");
                ++i;
                continue;
            }
            // A run of still images: decoded in parallel by the bulk detector's loader.
            std::size_t end = i;
            while (end < items.size() && items[end].kind == InputKind::Image && end - i < kImagesPerRun) ++end;
            detect_frames(
                end - i, [&](std::size_t k) { return read_bgr(items[i + k].path); },
                [&](std::size_t k) { return items[i + k].path.string(); }, [](std::size_t) { return -1LL; });
            done += end - i;
            progress.step(done, "inputs");
            i = end;
        }
    }

    void run_video(const std::string& path) {
#if !CASCADEKIT_TOOLS_CODECS
        fail(path, "this cascade was built without video support (CASCADEKIT_TOOLS_CODECS=OFF)");
#else
        try {
            regular_file_size(path, "video");  // a FIFO named x.avi would block the decoder forever
        } catch (const std::exception& e) {
            fail(path, e.what());
            return;
        }
        cv::VideoCapture cap(path);
        if (!cap.isOpened()) {
            fail(path, "cannot open video");
            return;
        }
        try {  // the frame size the container declares, before any frame is decoded
            check_scan_size(cap.get(cv::CAP_PROP_FRAME_WIDTH), cap.get(cv::CAP_PROP_FRAME_HEIGHT), detector_.operation().scan.min_scale);
        } catch (const std::exception& e) {
            fail(path, std::string("video frames: ") + e.what());
            return;
        }
        const double count = cap.get(cv::CAP_PROP_FRAME_COUNT);
        std::size_t total = count > 0 ? static_cast<std::size_t>(count) : 0;
        if (o_.max_frames > 0 && (total == 0 || total > static_cast<std::size_t>(o_.max_frames)))
            total = static_cast<std::size_t>(o_.max_frames);
        Progress progress(total);
        long long index = 0;
        // Frames are decoded in order (the container is sequential), a chunk at a time, and
        // detected together.
        std::vector<cv::Mat> frames;
        for (;;) {
            frames.clear();
            cv::Mat frame;
            while (frames.size() < kFramesPerChunk && (o_.max_frames <= 0 || index + static_cast<long long>(frames.size()) < o_.max_frames) &&
                   cap.read(frame))
                frames.push_back(frame.clone());
            if (frames.empty()) break;
            const long long first = index;
            detect_frames(
                frames.size(), [&](std::size_t k) { return frames[k]; }, [&](std::size_t) { return path; },
                [&](std::size_t k) { return first + static_cast<long long>(k); });
            index += static_cast<long long>(frames.size());
            progress.step(static_cast<std::size_t>(index), "frames of " + path);
        }
        if (index == 0) fail(path, "video holds no decodable frames");
#endif
    }

    int finish() {
        if (!o_.json.empty()) write_text_atomically(o_.json, json_.dump(2) + "\n");
        if (!o_.coco.empty()) write_text_atomically(o_.coco, coco_.dump() + "\n");
        const auto n = json_["images"].size();
        spdlog::info("{} image(s), {} window(s) scanned, {} detection(s), {} failure(s)", n, total_windows_,
                     total_detections_, failures_);
        return failures_ ? kExitSomeInputsFailed : kExitOk;
    }

private:
    static constexpr std::size_t kImagesPerRun = 64;    // still images handed to the bulk detector at once
    static constexpr std::size_t kFramesPerChunk = 16;  // video frames decoded, then detected together
    const DetectOptions& o_;
    ObjectDetector& detector_;
    std::map<std::string, std::int64_t> coco_ids_;  // --coco-annotations: file name → image id
    nlohmann::json json_;
    nlohmann::json coco_ = nlohmann::json::array();
    std::int64_t coco_sequence_ = 0;
    DrawNames names_;
    std::size_t failures_ = 0;
    std::uint64_t total_windows_ = 0;
    std::size_t total_detections_ = 0;
};
}  // namespace

// Creates the output folders and checks that the outputs can be written; throws naming the problem.
void prepare_outputs(const DetectOptions& o) {
    std::error_code ec;
    if (!o.coco.empty()) check_writable_file(o.coco);
    if (!o.coco_annotations.empty() && o.coco.empty()) throw std::runtime_error("--coco-annotations goes with --coco");
    if (!o.json.empty()) {
        const auto parent = std::filesystem::absolute(o.json).parent_path();
        std::filesystem::create_directories(parent, ec);
        if (!std::filesystem::is_directory(parent, ec))
            throw std::runtime_error(o.json + ": cannot write JSON there: cannot create folder " + parent.string());
        check_writable_file(o.json);
    }
    if (!o.draw_dir.empty()) {
        if (std::filesystem::exists(o.draw_dir, ec) && !std::filesystem::is_directory(o.draw_dir, ec))
            throw std::runtime_error(o.draw_dir + ": --draw needs a folder; this is a file");
        std::filesystem::create_directories(o.draw_dir, ec);
        if (ec) throw std::runtime_error(o.draw_dir + ": cannot create folder: " + ec.message());
        check_writable_file(std::filesystem::path(o.draw_dir) / "probe.png");
    }
}

// The command line's options over the model's operating point.
ObjectOptions object_options(const DetectOptions& o) {
    ObjectOptions oo;
    oo.point = o.point;
    oo.max_scale = o.params.max_scale;
    oo.min_size = o.min_size;
    oo.max_size = o.max_size;
    oo.scale_windows = o.params.scale_windows;
    oo.approximate_hog = o.params.approximate_hog;
    oo.approximate_lbp = o.params.approximate_lbp;
    oo.mean_shift = o.fusion;
    oo.min_neighbors = o.min_neighbors;
    oo.window_boxes = o.window_boxes;
    oo.bulk.backend = o.backend;
    oo.bulk.device = o.device;
    return oo;
}

int run_detect(const DetectOptions& o) {
    // Everything that can make the whole run pointless is checked before any output is written.
    std::unique_ptr<ObjectDetector> detector;
    std::map<std::string, std::int64_t> coco_ids;
    try {
        const CascadeModel model = load_model(o.model);
        if (o.min_neighbors > 0 && overridden(model.operating, o.point).fuse == "none")
            throw std::runtime_error("--min-neighbors needs fusion (--fuse meanshift or nms), not --fuse none");
        detector = std::make_unique<ObjectDetector>(model, object_options(o));
        prepare_outputs(o);
        coco_ids = coco_image_ids(o.coco_annotations);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
    std::vector<InputProblem> problems;
    const std::vector<InputItem> items = expand_inputs(o.inputs, problems);
    const Operation& op = detector->operation();
    spdlog::info("model {} ({} stages), backend {}, {} input(s)", o.model, detector->model().stages.size(),
                 detector->backend_name(), items.size());
    spdlog::info("stride {}, scale step {}, min scale {}, fuse {}, threshold {}, pad {} ({})", op.scan.stride,
                 op.scan.scale_step, op.scan.min_scale, to_string(op.boxes.fusion.method), op.boxes.threshold, op.boxes.pad,
                 detector->model().operating.chosen_on.empty() ? "detector defaults"
                                                               : "the model's: " + detector->model().operating.chosen_on);
    DetectRun run(o, *detector, std::move(coco_ids));
    for (const InputProblem& p : problems) run.fail(p.path, p.problem);
    try {
        run.run(items);
    } catch (const DeviceError& e) {
        // The GPU is gone or faulted: every later frame would fail the same way. Stop, and
        // write no output (it would be silently incomplete).
        spdlog::error("the GPU failed, stopping: {}", e.what());
        return kExitFatal;
    }
    try {
        return run.finish();
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
}

}  // namespace cascadekit::tools
