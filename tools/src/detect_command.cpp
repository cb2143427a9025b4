#include <spdlog/spdlog.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>
#if CASCADEKIT_TOOLS_CODECS
#include <opencv2/videoio.hpp>
#endif
#include <set>

#include "cascadekit/io/files.hpp"
#include "cascadekit/io/model_file.hpp"
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

class DetectRun {
public:
    DetectRun(const DetectOptions& o, Detector& detector, std::string model_path)
        : o_(o), detector_(detector) {
        json_["model"] = std::move(model_path);
        json_["backend"] = detector.backend_name();
        json_["params"] = {{"stride", o.params.stride},         {"scale_step", o.params.scale_step},
                           {"min_scale", o.params.min_scale},   {"max_scale", o.params.max_scale},
                           {"fuse", to_string(o.fusion.method)}, {"nms_iou", o.fusion.nms_iou},
                           {"sigma_x", o.fusion.sigma_x},       {"sigma_y", o.fusion.sigma_y},
                           {"sigma_s", o.fusion.sigma_s}};
        json_["images"] = nlohmann::json::array();
        json_["errors"] = nlohmann::json::array();
    }

    void fail(const std::string& path, std::string problem) {
        if (problem.rfind(path + ": ", 0) == 0) problem.erase(0, path.size() + 2);  // errors that name the file already
        spdlog::error("{}: {}", path, problem);
        json_["errors"].push_back({{"path", path}, {"error", problem}});
        ++failures_;
    }

    // Detects in one decoded frame; frame < 0 for still images.
    void process(const cv::Mat& bgr, const std::string& path, long long frame) {
        const auto t0 = Clock::now();
        DetectResult r;
        try {
            check_scan_size(bgr.cols, bgr.rows, o_.params.min_scale);
            r = detector_.detect(view_of(bgr));
        } catch (const std::exception& e) {
            fail(path + (frame >= 0 ? "#" + std::to_string(frame) : ""), e.what());
            return;
        }
        const auto fused = fuse(r.detections, detector_.model().window_width, detector_.model().window_height, o_.fusion);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        nlohmann::json entry{{"path", path}, {"width", bgr.cols}, {"height", bgr.rows}};
        if (frame >= 0) entry["frame"] = frame;
        auto& dets = entry["detections"] = nlohmann::json::array();
        for (const Detection& d : fused) dets.push_back({{"x", d.x}, {"y", d.y}, {"w", d.w}, {"h", d.h}, {"score", d.score}});
        entry["stats"] = {{"windows_scanned", r.stats.windows_scanned},
                          {"rejected_per_stage", r.stats.rejected_per_stage},
                          {"weak_evaluated", r.stats.weak_evaluated},
                          {"raw_detections", r.detections.size()},
                          {"levels", r.stats.levels},
                          {"milliseconds", ms}};
        json_["images"].push_back(std::move(entry));
        total_windows_ += r.stats.windows_scanned;
        total_detections_ += fused.size();
        if (!o_.draw_dir.empty()) draw(bgr, fused, path, frame);
    }

    void draw(const cv::Mat& bgr, const std::vector<Detection>& dets, const std::string& path, long long frame) {
        cv::Mat canvas = bgr.clone();
        for (const Detection& d : dets) {
            const cv::Rect box(cvRound(d.x), cvRound(d.y), cvRound(d.w), cvRound(d.h));
            cv::rectangle(canvas, box, cv::Scalar(0, 255, 0), 2);
            char label[32];
            std::snprintf(label, sizeof label, "%.2f", d.score);
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
            write_atomically(target, [&](const std::filesystem::path& tmp) { return write_image(tmp, canvas); });
        } catch (const std::exception& e) {
            fail(path, e.what());
        }
    }

    void run(const std::vector<InputItem>& items) {
        Progress progress(items.size());
        std::size_t done = 0;
        for (const InputItem& item : items) {
            const std::string path = item.path.string();
            if (item.kind == InputKind::Image) {
                cv::Mat img;
                try {
                    img = read_bgr(item.path);
                } catch (const std::exception& e) {
                    fail(path, e.what());
                }
                if (!img.empty()) process(img, path, -1);
            } else {
                run_video(path);
            }
            progress.step(++done, "inputs");
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
            check_scan_size(cap.get(cv::CAP_PROP_FRAME_WIDTH), cap.get(cv::CAP_PROP_FRAME_HEIGHT), o_.params.min_scale);
        } catch (const std::exception& e) {
            fail(path, std::string("video frames: ") + e.what());
            return;
        }
        const double count = cap.get(cv::CAP_PROP_FRAME_COUNT);
        std::size_t total = count > 0 ? static_cast<std::size_t>(count) : 0;
        if (o_.max_frames > 0 && (total == 0 || total > static_cast<std::size_t>(o_.max_frames)))
            total = static_cast<std::size_t>(o_.max_frames);
        Progress progress(total);
        cv::Mat frame;
        long long index = 0;
        while ((o_.max_frames <= 0 || index < o_.max_frames) && cap.read(frame)) {
            process(frame, path, index++);
            progress.step(static_cast<std::size_t>(index), "frames of " + path);
        }
        if (index == 0) fail(path, "video holds no decodable frames");
#endif
    }

    int finish() {
        if (!o_.json.empty()) write_text_atomically(o_.json, json_.dump(2) + "\n");
        const auto n = json_["images"].size();
        spdlog::info("{} image(s), {} window(s) scanned, {} detection(s), {} failure(s)", n, total_windows_,
                     total_detections_, failures_);
        return failures_ ? kExitSomeInputsFailed : kExitOk;
    }

private:
    const DetectOptions& o_;
    Detector& detector_;
    nlohmann::json json_;
    DrawNames names_;
    std::size_t failures_ = 0;
    std::uint64_t total_windows_ = 0;
    std::size_t total_detections_ = 0;
};
}  // namespace

// Creates the output folders and checks that the outputs can be written; throws naming the problem.
void prepare_outputs(const DetectOptions& o) {
    std::error_code ec;
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

int run_detect(const DetectOptions& o) {
    // Everything that can make the whole run pointless is checked before any output is written.
    std::unique_ptr<Detector> detector;
    try {
        const CascadeModel model = load_model(o.model);
        detector = Detector::create(model, o.params, o.backend);
        prepare_outputs(o);
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
    std::vector<InputProblem> problems;
    const std::vector<InputItem> items = expand_inputs(o.inputs, problems);
    spdlog::info("model {} ({} stages), backend {}, {} input(s)", o.model, detector->model().stages.size(),
                 detector->backend_name(), items.size());
    DetectRun run(o, *detector, o.model);
    for (const InputProblem& p : problems) run.fail(p.path, p.problem);
    run.run(items);
    try {
        return run.finish();
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
}

}  // namespace cascadekit::tools
