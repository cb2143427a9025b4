// cascade crop: training positives cut from an annotated set (any format io/annotations.hpp
// reads), each object's box placed in the window by the model's convention, written as PNGs
// that `cascade train` takes as a crops folder (data.layout: folders) and a user can look at.
#include <spdlog/spdlog.h>

#include <cmath>
#include <opencv2/imgproc.hpp>

#include "cascadekit/io/annotations.hpp"
#include "cascadekit/io/files.hpp"
#include "commands.hpp"
#include "image_files.hpp"
#include "inputs.hpp"

namespace cascadekit::tools {

namespace {
// The region of the image the window covers when the object's box sits at `object` (fractions
// of the window) and the window keeps its aspect: the box's height sets the scale, the centres
// coincide.
cv::Rect2d window_region(const Box& b, const CropOptions& o) {
    const double s = b.h / (o.object[3] * o.window_height);  // image pixels per window pixel
    const double cx = b.x + b.w / 2, cy = b.y + b.h / 2;
    const double ox = (o.object[0] + o.object[2] / 2) * o.window_width, oy = (o.object[1] + o.object[3] / 2) * o.window_height;
    return {cx - ox * s, cy - oy * s, o.window_width * s, o.window_height * s};
}
}  // namespace

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
        const double object_aspect = (f[2] * o.window_width) / (f[3] * o.window_height);
        const double min_height = o.min_height > 0 ? o.min_height : f[3] * o.window_height / 2;
        std::size_t crops = 0, too_small = 0, wrong_aspect = 0, unreadable = 0;
        for (const AnnotatedFile& a : set) {
            if (a.objects.empty()) continue;
            cv::Mat img;
            try {
                img = read_bgr(a.image);
            } catch (const std::exception& e) {
                spdlog::error("{}", e.what());
                ++unreadable;
                continue;
            }
            for (std::size_t k = 0; k < a.objects.size(); ++k) {
                const Box& b = a.objects[k];
                if (b.h < min_height) {
                    ++too_small;
                    continue;
                }
                const double aspect = (b.w / b.h) / object_aspect;
                if (aspect > o.max_aspect || aspect < 1 / o.max_aspect) {
                    ++wrong_aspect;
                    continue;
                }
                // The window's region, with a replicated border where it leaves the image.
                const cv::Rect2d r = window_region(b, o);
                const int x0 = static_cast<int>(std::floor(r.x)), y0 = static_cast<int>(std::floor(r.y));
                const int x1 = static_cast<int>(std::ceil(r.x + r.width)), y1 = static_cast<int>(std::ceil(r.y + r.height));
                const int left = std::max(0, -x0), top = std::max(0, -y0);
                const int right = std::max(0, x1 - img.cols), bottom = std::max(0, y1 - img.rows);
                cv::Mat region;
                cv::copyMakeBorder(img(cv::Rect(x0 + left, y0 + top, x1 - x0 - left - right, y1 - y0 - top - bottom)), region,
                                   top, bottom, left, right, cv::BORDER_REPLICATE);
                cv::Mat crop;
                const bool shrink = region.rows > o.window_height;
                cv::resize(region, crop, cv::Size(o.window_width, o.window_height), 0, 0, shrink ? cv::INTER_AREA : cv::INTER_LINEAR);
                write_image(std::filesystem::path(o.out) / (a.image.stem().string() + "-" + std::to_string(k + 1) + ".png"), crop);
                ++crops;
            }
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
