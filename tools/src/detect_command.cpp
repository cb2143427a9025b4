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
#include "cascadekit/runtime/bulk_detector.hpp"
#include "commands.hpp"
#include "image_files.hpp"
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
    DetectRun(const DetectOptions& o, BulkDetector& bulk, std::string model_path, std::map<std::string, std::int64_t> coco_ids)
        : o_(o), bulk_(bulk), coco_ids_(std::move(coco_ids)) {
        json_["model"] = std::move(model_path);
        json_["backend"] = bulk.backend_name();
        json_["params"] = {{"stride", o.params.stride},         {"scale_step", o.params.scale_step},
                           {"min_scale", bulk.params().min_scale}, {"max_scale", bulk.params().max_scale},
                           {"fuse", to_string(o.fusion.method)}, {"nms_iou", o.fusion.nms_iou},
                           {"sigma_x", o.fusion.sigma_x},       {"sigma_y", o.fusion.sigma_y},
                           {"sigma_s", o.fusion.sigma_s},       {"threshold", o.threshold},
                           {"min_neighbors", o.min_neighbors},  {"pad", o.pad}, {"level_pad", o.params.level_pad}, {"scale_windows", o.params.scale_windows},
                           {"approximate_hog", o.params.approximate_hog},
                           {"approximate_lbp", o.params.approximate_lbp},
                           {"boxes", o.window_boxes ? "window" : "object"}};
        const ObjectBox& b = bulk.model().object_box;
        json_["object_box"] = {decimal_value(b.x), decimal_value(b.y), decimal_value(b.w), decimal_value(b.h)};
        json_["operating_point"] = bulk.model().operating.chosen_on.empty() ? "detector defaults"
                                                                            : bulk.model().operating.chosen_on;
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
    void process(const cv::Mat& bgr, const DetectResult& r, double ms, const std::string& path, long long frame) {
        auto fused = fuse(r.detections, bulk_.model().window_width, bulk_.model().window_height, o_.fusion);
        std::erase_if(fused, [&](const Detection& d) { return d.score < o_.threshold || d.support <= o_.min_neighbors; });
        // What is reported and drawn: the object's box inside each fused window (or the window).
        std::vector<Box> boxes;
        for (const Detection& d : fused)
            boxes.push_back(o_.window_boxes ? d.box() : object_in_window(bulk_.model().object_box, d.x, d.y, d.w, d.h));
        nlohmann::json entry{{"path", path}, {"width", bgr.cols}, {"height", bgr.rows}};
        if (frame >= 0) entry["frame"] = frame;
        auto& dets = entry["detections"] = nlohmann::json::array();
        for (std::size_t k = 0; k < fused.size(); ++k) {
            const Detection& d = fused[k];
            const Box& b = boxes[k];
            dets.push_back({{"x", rounded(b.x, 0.01)}, {"y", rounded(b.y, 0.01)}, {"w", rounded(b.w, 0.01)},
                            {"h", rounded(b.h, 0.01)}, {"score", rounded(d.score, 1e-4)}, {"windows", d.support},
                            {"window", {rounded(d.x, 0.01), rounded(d.y, 0.01), rounded(d.w, 0.01), rounded(d.h, 0.01)}}});
        }
        if (!o_.coco.empty()) {
            std::int64_t id = ++coco_sequence_;
            if (!coco_ids_.empty()) {
                const auto it = coco_ids_.find(std::filesystem::path(path).filename().string());
                if (it == coco_ids_.end()) {
                    fail(path, "not among the images of " + o_.coco_annotations + " (--coco-annotations)");
                    return;
                }
                id = it->second;
            }
            for (std::size_t k = 0; k < fused.size(); ++k)
                coco_.push_back({{"image_id", id},
                                 {"category_id", o_.coco_category},
                                 {"bbox", {rounded(boxes[k].x, 0.01), rounded(boxes[k].y, 0.01), rounded(boxes[k].w, 0.01),
                                           rounded(boxes[k].h, 0.01)}},
                                 {"score", rounded(fused[k].score, 1e-4)}});
        }
        entry["stats"] = {{"windows_scanned", r.stats.windows_scanned},
                          {"rejected_per_stage", r.stats.rejected_per_stage},
                          {"weak_evaluated", r.stats.weak_evaluated},
                          {"raw_detections", r.detections.size()},
                          {"levels", r.stats.levels},
                          {"milliseconds", ms}};
        json_["images"].push_back(std::move(entry));
        total_windows_ += r.stats.windows_scanned;
        total_detections_ += fused.size();
        if (!o_.draw_dir.empty()) draw(bgr, fused, boxes, path, frame);
    }

    // A decoded frame, and the same with --pad's replicated border (the detector scans that one).
    struct Frame {
        cv::Mat original, padded;
        int pad = 0;
    };

    // Decoded frames through the bulk detector, in order. A frame that cannot be served is
    // reported by name; a device failure stops the whole run (DeviceError propagates).
    void detect_frames(std::size_t count, const std::function<cv::Mat(std::size_t)>& decode,
                       const std::function<std::string(std::size_t)>& name, const std::function<long long(std::size_t)>& frame) {
        bulk_.run(
            count,
            [&](std::size_t i) {
                auto f = std::make_shared<Frame>();
                f->original = decode(i);
                f->pad = static_cast<int>(std::lround(o_.pad * f->original.rows));
                if (f->pad > 0) {
                    check_scan_size(f->original.cols + 2.0 * f->pad, f->original.rows + 2.0 * f->pad, bulk_.params().min_scale);
                    // The detector would name the padded size only: say where it comes from.
                    const std::string why = window_fit_problem(f->original.cols + 2 * f->pad, f->original.rows + 2 * f->pad,
                                                               bulk_.model().window_width, bulk_.model().window_height, bulk_.params());
                    if (!why.empty())
                        throw DetectError("image " + std::to_string(f->original.cols) + "x" + std::to_string(f->original.rows) +
                                          " with a border of " + std::to_string(f->pad) + " px (pad " + fmt::format("{}", o_.pad) +
                                          " of its height): " + why);
                    cv::copyMakeBorder(f->original, f->padded, f->pad, f->pad, f->pad, f->pad, cv::BORDER_REPLICATE);
                } else {
                    check_scan_size(f->original.cols, f->original.rows, bulk_.params().min_scale);
                    f->padded = f->original;
                }
                return BulkImage{view_of(f->padded), f};
            },
            [&](std::size_t i, DetectResult&& r, const BulkImage& image, double ms) {
                const Frame& f = *static_cast<const Frame*>(image.owner.get());
                for (Detection& d : r.detections) d.x -= f.pad, d.y -= f.pad;  // back to the unpadded image
                process(f.original, r, ms, name(i), frame(i));
            },
            [&](std::size_t i, const std::string& message) {
                std::string where = name(i);
                if (frame(i) >= 0) where.append("#").append(std::to_string(frame(i)));
                fail(where, message);
            });
    }

    void draw(const cv::Mat& bgr, const std::vector<Detection>& dets, const std::vector<Box>& boxes, const std::string& path,
              long long frame) {
        cv::Mat canvas = bgr.clone();
        for (std::size_t k = 0; k < dets.size(); ++k) {
            const cv::Rect box(cvRound(boxes[k].x), cvRound(boxes[k].y), cvRound(boxes[k].w), cvRound(boxes[k].h));
            cv::rectangle(canvas, box, cv::Scalar(0, 255, 0), 2);
            char label[32];
            std::snprintf(label, sizeof label, "%.2f", dets[k].score);
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
            check_scan_size(cap.get(cv::CAP_PROP_FRAME_WIDTH), cap.get(cv::CAP_PROP_FRAME_HEIGHT), bulk_.params().min_scale);
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
    BulkDetector& bulk_;
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

// The scan, fusion, threshold and pad: the model's operating point, with what the command line gave.
DetectOptions with_operating_point(DetectOptions o, const CascadeModel& model) {
    const OperatingPoint p = overridden(model.operating, o.point);
    const double max_scale = o.params.max_scale;
    const bool scale_windows = o.params.scale_windows, approximate_hog = o.params.approximate_hog,
               approximate_lbp = o.params.approximate_lbp;
    o.params = detect_params(p);
    o.params.max_scale = max_scale;
    o.params.scale_windows = scale_windows;
    o.params.approximate_hog = approximate_hog;
    o.params.approximate_lbp = approximate_lbp;
    const FusionParams f = fusion_params(p);
    o.fusion.method = f.method;
    o.fusion.nms_iou = f.nms_iou;
    o.threshold = decimal_value(p.threshold);
    o.pad = decimal_value(p.pad);
    return o;
}

int run_detect(const DetectOptions& given) {
    // Everything that can make the whole run pointless is checked before any output is written.
    std::unique_ptr<BulkDetector> bulk;
    std::map<std::string, std::int64_t> coco_ids;
    DetectOptions o = given;
    try {
        const CascadeModel model = load_model(o.model);
        o = with_operating_point(given, model);
        BulkOptions bo;
        bo.backend = o.backend;
        bo.device = o.device;
        DetectParams params = o.params;
        if (o.min_size > 0) params.min_scale = o.min_size / model.window_height;
        if (o.max_size > 0) params.max_scale = o.max_size / model.window_height;
        if (o.min_neighbors > 0 && o.fusion.method == FusionMethod::None)
            throw std::runtime_error("--min-neighbors needs fusion (--fuse meanshift or nms), not --fuse none");
        bulk = std::make_unique<BulkDetector>(model, params, bo);
        prepare_outputs(o);
        coco_ids = coco_image_ids(o.coco_annotations);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
    std::vector<InputProblem> problems;
    const std::vector<InputItem> items = expand_inputs(o.inputs, problems);
    spdlog::info("model {} ({} stages), backend {}, {} input(s)", o.model, bulk->model().stages.size(),
                 bulk->backend_name(), items.size());
    spdlog::info("stride {}, scale step {}, min scale {}, fuse {}, threshold {}, pad {} ({})", o.params.stride,
                 o.params.scale_step, bulk->params().min_scale, to_string(o.fusion.method), o.threshold, o.pad,
                 bulk->model().operating.chosen_on.empty() ? "detector defaults" : "the model's: " + bulk->model().operating.chosen_on);
    DetectRun run(o, *bulk, o.model, std::move(coco_ids));
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
