#include <algorithm>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <opencv2/imgproc.hpp>

#include "cascadekit/features/block_pool.hpp"
#include "cascadekit/io/files.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include "commands.hpp"
#include "cascadekit/workflow/image_files.hpp"
#include "output_files.hpp"

namespace cascadekit::tools {

namespace {
void print_model(const std::string& path, const CascadeModel& m) {
    std::printf("model %s\n", path.c_str());
    std::printf("  window %dx%d, features %s, blocks %s (epsilon %g, hys_clip %g, gray gamma %s, votes %s, gradients of %s)\n", m.window_width,
                m.window_height, feature_family(m).c_str(), std::string(to_string(m.hog.norm)).c_str(), m.hog.epsilon,
                m.hog.hys_clip, std::string(kGrayGammaNames.name(m.hog.gamma)).c_str(),
                std::string(kOrientationVotesNames.name(m.hog.votes)).c_str(),
                std::string(kGradientChannelsNames.name(m.hog.channels)).c_str());
    std::printf("  created %s by cascadekit %s\n", m.metadata.created_utc.c_str(), m.metadata.toolkit_version.c_str());
    if (!m.metadata.data_description.empty()) std::printf("  data: %s\n", m.metadata.data_description.c_str());
    const ObjectBox& b = m.object_box;
    std::printf("  object box in the window: x %g, y %g, w %g, h %g (fractions of %dx%d)\n", decimal_value(b.x),
                decimal_value(b.y), decimal_value(b.w), decimal_value(b.h), m.window_width, m.window_height);
    const OperatingPoint& o = m.operating;
    std::printf("  operating point: threshold %g, stride %d, scale step %g, min scale %g, pad %g, fuse %s", decimal_value(o.threshold),
                o.stride, decimal_value(o.scale_step), decimal_value(o.min_scale), decimal_value(o.pad), o.fuse.c_str());
    if (o.fuse == "nms") std::printf(" (IoU %g)", decimal_value(o.nms_iou));
    if (o.level_pad > 0) std::printf(", level pad %d", o.level_pad);
    std::printf("; %s\n", o.chosen_on.empty() ? "detector defaults (not chosen on data)" : o.chosen_on.c_str());
    std::printf("  %zu stage(s)\n", m.stages.size());
    // Stages are numbered from 1 as in the literature; the file's groups from 000.
    std::printf("  %5s  %-11s  %-13s  %8s  %-6s  %12s\n", "stage", "group", "kind", "learners", "vote", "threshold");
    std::size_t total = 0;
    for (std::size_t s = 0; s < m.stages.size(); ++s) {
        total += m.stages[s].size();
        if (const auto* h = m.stages[s].get_if<HogSvmStage>()) {
            std::printf("  %5zu  %-11s  %-13s  %8zu  %-6s  %12.6g", s + 1, stage_path(s).c_str(), "hog_svm", h->learners.size(),
                        h->vote == VoteMode::Binary ? "binary" : h->vote == VoteMode::Margin ? "margin" : "clipped", h->threshold);
            if (h->carry != 0.0f) std::printf("  nested, carry %.6g", h->carry);  // + carry x the running score
            std::printf("\n");
        } else {
            const auto& w = m.stages[s].as<WaldBoostLbpStage>();
            std::printf("  %5zu  %-11s  %-13s  %8zu  %-6s  %12.6g\n", s + 1, stage_path(s).c_str(), "waldboost_lbp", w.weak.size(), "-",
                        w.final_threshold);
        }
    }
    std::printf("  %zu weak learner(s) in all\n", total);
    std::fflush(stdout);  // before any log line on stderr
}

// One window-sized panel per stage, its blocks (HoG) or 3×3 cell grids (LBP) outlined.
cv::Mat draw_stages(const CascadeModel& m, std::vector<int> which) {
    constexpr int kZoom = 3, kPerRow = 6, kMargin = 8, kLabel = 18;
    const int pw = m.window_width * kZoom, ph = m.window_height * kZoom;
    if (which.empty())
        for (int s = 1; s <= static_cast<int>(m.stages.size()); ++s) which.push_back(s);
    const int n = static_cast<int>(which.size());
    const int cols = std::min(n, kPerRow), rows = (n + kPerRow - 1) / kPerRow;
    cv::Mat canvas(rows * (ph + kLabel + kMargin) + kMargin, cols * (pw + kMargin) + kMargin, CV_8UC3, cv::Scalar(255, 255, 255));
    for (int panel_index = 0; panel_index < n; ++panel_index) {
        const int ox = kMargin + (panel_index % kPerRow) * (pw + kMargin);
        const int oy = kMargin + (panel_index / kPerRow) * (ph + kLabel + kMargin);
        const auto s = static_cast<std::size_t>(which[static_cast<std::size_t>(panel_index)] - 1);
        cv::putText(canvas, "stage " + std::to_string(s + 1) + " (" + std::to_string(m.stages[s].size()) + ")",
                    {ox, oy + 13}, cv::FONT_HERSHEY_SIMPLEX, 0.45, cv::Scalar(0, 0, 0), 1);
        const cv::Rect panel(ox, oy + kLabel, pw, ph);
        canvas(panel).setTo(cv::Scalar(40, 40, 40));
        std::vector<Rect> rects;
        if (const auto* h = m.stages[s].get_if<HogSvmStage>())
            for (const auto& l : h->learners) rects.push_back(l.block);
        else
            for (const auto& c : m.stages[s].as<WaldBoostLbpStage>().weak) rects.push_back({c.cell.x, c.cell.y, 3 * c.cell.w, 3 * c.cell.h});
        for (std::size_t i = 0; i < rects.size(); ++i) {
            // A fixed hue walk keeps colours distinct and the picture reproducible.
            cv::Mat hsv(1, 1, CV_8UC3, cv::Scalar(static_cast<double>((i * 47) % 180), 200, 255)), bgr;
            cv::cvtColor(hsv, bgr, cv::COLOR_HSV2BGR);
            const auto c = bgr.at<cv::Vec3b>(0, 0);
            const Rect& r = rects[i];
            cv::rectangle(canvas, cv::Rect(ox + r.x * kZoom, oy + kLabel + r.y * kZoom, r.w * kZoom, r.h * kZoom),
                          cv::Scalar(c[0], c[1], c[2]), 2);
        }
    }
    return canvas;
}
// One window-sized panel per weak classifier of the first `count` of a WaldBoost LBP stage:
// its 3×3 grid of cells (the centre cell, the code's reference, filled), over `background` (e.g.
// a face crop, resized to the window) or gray. The order is the sequence's: the first panels
// are the weak classifiers every window meets.
cv::Mat draw_weak(const WaldBoostLbpStage& stage, std::size_t count, int ww, int wh, const GrayImage* background) {
    constexpr int kZoom = 6, kPerRow = 8, kMargin = 6, kLabel = 16;
    const int pw = ww * kZoom, ph = wh * kZoom;
    const int n = static_cast<int>(std::min(count, stage.weak.size()));
    const int cols = std::min(n, kPerRow), rows = (n + kPerRow - 1) / kPerRow;
    cv::Mat canvas(rows * (ph + kLabel + kMargin) + kMargin, cols * (pw + kMargin) + kMargin, CV_8UC3, cv::Scalar(255, 255, 255));
    cv::Mat base(ph, pw, CV_8UC3, cv::Scalar(90, 90, 90));
    if (background) {
        const cv::Mat g(background->height, background->width, CV_8UC1, const_cast<std::uint8_t*>(background->pixels.data()));
        cv::Mat resized, bgr;
        cv::resize(g, resized, cv::Size(pw, ph), 0, 0, cv::INTER_LINEAR);
        cv::cvtColor(resized, base, cv::COLOR_GRAY2BGR);
    }
    for (int i = 0; i < n; ++i) {
        const int ox = kMargin + (i % kPerRow) * (pw + kMargin);
        const int oy = kMargin + (i / kPerRow) * (ph + kLabel + kMargin);
        cv::putText(canvas, "weak " + std::to_string(i + 1), {ox, oy + 12}, cv::FONT_HERSHEY_SIMPLEX, 0.4, cv::Scalar(0, 0, 0), 1);
        cv::Mat panel = canvas(cv::Rect(ox, oy + kLabel, pw, ph));
        base.copyTo(panel);
        const Rect& c = stage.weak[static_cast<std::size_t>(i)].cell;
        cv::Mat centre = panel(cv::Rect((c.x + c.w) * kZoom, (c.y + c.h) * kZoom, c.w * kZoom, c.h * kZoom));
        cv::Mat tint(centre.size(), CV_8UC3, cv::Scalar(0, 140, 255));
        cv::addWeighted(centre, 0.5, tint, 0.5, 0, centre);
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k)
                cv::rectangle(panel, cv::Rect((c.x + k * c.w) * kZoom, (c.y + j * c.h) * kZoom, c.w * kZoom, c.h * kZoom),
                              cv::Scalar(0, 200, 255), 1);
    }
    return canvas;
}
}  // namespace

int run_inspect(const InspectOptions& o) {
    if (!o.pool.empty()) {
        try {
            const auto pool = make_block_pool(o.pool, 64, 128);
            std::printf("pool %s: %zu blocks\n", o.pool.c_str(), pool.size());
        } catch (const std::exception& e) {
            spdlog::error("{}", e.what());
            return kExitFatal;
        }
        if (o.model.empty()) return kExitOk;
    }
    if (o.model.empty()) {
        spdlog::error("inspect needs a model FILE or --pool NAME");
        return kExitFatal;
    }
    try {
        if (!o.draw.empty()) check_writable_file(o.draw);  // before any work
        const CascadeModel m = load_model(o.model);
        print_model(o.model, m);
        if (!o.draw.empty()) {
            for (int s : o.stages)
            if (s < 1 || s > static_cast<int>(m.stages.size()))
                throw std::runtime_error("--stages: the model has stages 1 to " + std::to_string(m.stages.size()) + ", not " + std::to_string(s));
            cv::Mat canvas;
            if (o.weak > 0) {
                // The first WaldBoost stage named by --stages (default: the first in the model).
                const WaldBoostLbpStage* wb = nullptr;
                for (std::size_t s = 0; s < m.stages.size() && !wb; ++s)
                    if (o.stages.empty() || std::find(o.stages.begin(), o.stages.end(), static_cast<int>(s) + 1) != o.stages.end())
                        wb = m.stages[s].get_if<WaldBoostLbpStage>();
                if (!wb) throw std::runtime_error("--weak: " + o.model + " has no waldboost_lbp stage" + (o.stages.empty() ? "" : " among --stages"));
                GrayImage background;
                if (!o.background.empty()) background = load_gray(o.background);
                canvas = draw_weak(*wb, static_cast<std::size_t>(o.weak), m.window_width, m.window_height,
                                   o.background.empty() ? nullptr : &background);
            } else {
                canvas = draw_stages(m, o.stages);
            }
            write_image(o.draw, canvas);
            spdlog::info("wrote {}", o.draw);
        }
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
    return kExitOk;
}

int run_convert(const ConvertOptions& o) {
    try {
        check_writable_file(o.out);
        // The one place a model is parsed without its integrity check: the user vouches for it.
        CascadeModel m = load_model_unverified(o.in);
        if (o.stages > 0) {
            if (static_cast<std::size_t>(o.stages) > m.stages.size())
                throw std::runtime_error(o.in + ": --stages " + std::to_string(o.stages) + " but the model has only " +
                                         std::to_string(m.stages.size()) + " stage(s)");
            m.stages.erase(m.stages.begin() + o.stages, m.stages.end());
        }
        save_model(m, o.out);
        spdlog::info("{}: {} stage(s) re-saved as schema {} with an integrity header into {}", o.in, m.stages.size(),
                     kModelSchemaVersion, o.out);
        return kExitOk;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
}

}  // namespace cascadekit::tools
