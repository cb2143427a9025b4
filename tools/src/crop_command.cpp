// cascade crop: training positives cut from an annotated set (any format io/annotations.hpp
// reads), each object's box placed in the window by the model's convention, written as PNGs
// that `cascade train` takes as a crops folder (data.layout: folders) and a user can look at.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

#include "cascadekit/io/annotations.hpp"
#include "cascadekit/io/dataset.hpp"
#include "cascadekit/io/files.hpp"
#include "commands.hpp"
#include "cascadekit/workflow/image_files.hpp"
#include "inputs.hpp"

namespace cascadekit::tools {


int run_crop(const CropOptions& o) {
    try {
        if (o.window_width < 8 || o.window_height < 8 || o.window_width > 1024 || o.window_height > 1024)
            throw std::runtime_error("--window must be 8x8 to 1024x1024");
        const auto& f = o.object;
        if (!(f[0] >= 0 && f[1] >= 0 && f[2] > 0 && f[3] > 0 && f[0] + f[2] <= 1 + 1e-9 && f[1] + f[3] <= 1 + 1e-9))
            throw std::runtime_error("--object-box X,Y,W,H must be fractions of the window inside it (W, H > 0)");
        const std::vector<AnnotatedFile> set = read_annotated_set(o.annotations, o.format, o.object_class, o.images).images;
        std::filesystem::create_directories(o.out);
        check_writable_file(std::filesystem::path(o.out) / "probe.png");
        PositiveRules rules;
        rules.window = {o.window_width, o.window_height};
        rules.object = {static_cast<float>(f[0]), static_cast<float>(f[1]), static_cast<float>(f[2]), static_cast<float>(f[3])};
        rules.min_height = o.min_height;
        rules.max_aspect = o.max_aspect;
        const AnnotatedPositives chosen = annotated_positives(set, rules);
        const double min_height = chosen.min_height;
        const std::size_t too_small = chosen.too_small, wrong_aspect = chosen.wrong_aspect;
        std::size_t crops = 0, unreadable = 0;
        cv::Mat img;
        std::filesystem::path loaded;
        bool readable = false;
        for (std::size_t i = 0; i < chosen.crops.size(); ++i) {
            const PositiveCrop& c = chosen.crops[i];
            if (c.path != loaded) {  // crops come image by image
                loaded = c.path;
                try {
                    img = read_bgr(c.path);
                    readable = true;
                } catch (const std::exception& e) {
                    spdlog::error("{}", e.what());
                    ++unreadable;
                    readable = false;
                }
            }
            if (!readable) continue;
            // The window's region, with a replicated border where it leaves the image.
            const Box& r = c.region;
            const int x0 = static_cast<int>(std::floor(r.x)), y0 = static_cast<int>(std::floor(r.y));
            const int x1 = static_cast<int>(std::ceil(r.x + r.w)), y1 = static_cast<int>(std::ceil(r.y + r.h));
            const int left = std::clamp(-x0, 0, x1 - x0), top = std::clamp(-y0, 0, y1 - y0);
            const int right = std::clamp(x1 - img.cols, 0, x1 - x0 - left), bottom = std::clamp(y1 - img.rows, 0, y1 - y0 - top);
            if (x1 - x0 - left - right <= 0 || y1 - y0 - top - bottom <= 0) continue;  // wholly outside the image
            cv::Mat region;
            cv::copyMakeBorder(img(cv::Rect(x0 + left, y0 + top, x1 - x0 - left - right, y1 - y0 - top - bottom)), region, top,
                               bottom, left, right, cv::BORDER_REPLICATE);
            cv::Mat crop;
            const bool shrink = region.rows > o.window_height;
            cv::resize(region, crop, cv::Size(o.window_width, o.window_height), 0, 0, shrink ? cv::INTER_AREA : cv::INTER_LINEAR);
            write_image(std::filesystem::path(o.out) / (c.path.stem().string() + "-" + std::to_string(chosen.object_of[i] + 1) + ".png"), crop);
            ++crops;
        }
        std::printf("%zu crops of %dx%d from %zu annotated images into %s; skipped: %zu too small (under %.0f px tall), %zu of "
                    "the wrong aspect (beyond %.2fx the object box's), %zu in images that could not be read\n",
                    crops, o.window_width, o.window_height, set.size(), o.out.c_str(), too_small, min_height, wrong_aspect,
                    o.max_aspect, unreadable);
        return unreadable > 0 ? kExitSomeInputsFailed : kExitOk;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
}

}  // namespace cascadekit::tools
