#include "training_data.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "cascadekit/features/pyramid.hpp"
#include "streams.hpp"

namespace cascadekit::detail {

std::vector<Image> load_images(const std::vector<std::filesystem::path>& paths, const ImageLoader& loader,
                               const std::vector<ImageTransform>& transforms, bool colour) {
    std::vector<Image> out(paths.size());
    std::mutex m;
    std::string first_error;
    std::size_t first_index = paths.size();
    tbb::parallel_for(std::size_t{0}, paths.size(), [&](std::size_t i) {
        try {
            out[i] = keep_channels(loader(paths[i]), colour);
        } catch (const std::exception& e) {
            std::lock_guard lock(m);
            if (i < first_index) first_index = i, first_error = e.what();
        }
    });
    if (first_index < paths.size()) throw TrainError(first_error);
    const std::size_t n = out.size();
    out.resize(n * (1 + transforms.size()));
    tbb::parallel_for(std::size_t{0}, n * transforms.size(),
                      [&](std::size_t i) { out[n + i] = transformed(out[i % n], transforms[i / n]); });
    return out;
}

GrayImage jittered(const GrayImage& g, double degrees, double scale, double dx, double dy) {
    GrayImage out(g.width, g.height);
    const double a = degrees * 3.14159265358979323846 / 180.0, c = std::cos(a) / scale, s = std::sin(a) / scale;
    const double cx = (g.width - 1) / 2.0, cy = (g.height - 1) / 2.0;
    auto px = [&](int x, int y) { return static_cast<double>(g.at(std::clamp(x, 0, g.width - 1), std::clamp(y, 0, g.height - 1))); };
    for (int v = 0; v < g.height; ++v)
        for (int u = 0; u < g.width; ++u) {
            // Output pixel (u, v) samples the source where the inverse transform sends it.
            const double ox = u - cx - dx, oy = v - cy - dy;
            const double sx = cx + c * ox + s * oy, sy = cy - s * ox + c * oy;
            const double fx = std::floor(sx), fy = std::floor(sy), tx = sx - fx, ty = sy - fy;
            const int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
            const double value = (1 - ty) * ((1 - tx) * px(x0, y0) + tx * px(x0 + 1, y0)) +
                                 ty * ((1 - tx) * px(x0, y0 + 1) + tx * px(x0 + 1, y0 + 1));
            out.at(u, v) = static_cast<std::uint8_t>(std::clamp(std::lround(value), 0L, 255L));
        }
    return out;
}

GrayImage low_res(const GrayImage& g, double factor) {
    const int sw = std::max(1, static_cast<int>(std::lround(g.width / factor)));
    const int sh = std::max(1, static_cast<int>(std::lround(g.height / factor)));
    const double fx = static_cast<double>(g.width) / sw, fy = static_cast<double>(g.height) / sh;
    std::vector<double> small(static_cast<std::size_t>(sw) * static_cast<std::size_t>(sh));
    for (int v = 0; v < sh; ++v)
        for (int u = 0; u < sw; ++u) {
            // The source pixels whose centres fall in the small pixel's footprint (at least one).
            const int x0 = static_cast<int>(std::ceil(u * fx - 0.5)), y0 = static_cast<int>(std::ceil(v * fy - 0.5));
            const int x1 = std::max(x0 + 1, static_cast<int>(std::ceil((u + 1) * fx - 0.5)));
            const int y1 = std::max(y0 + 1, static_cast<int>(std::ceil((v + 1) * fy - 0.5)));
            double sum = 0;
            int count = 0;
            for (int y = y0; y < std::min(y1, g.height); ++y)
                for (int x = x0; x < std::min(x1, g.width); ++x, ++count) sum += g.at(x, y);
            small[static_cast<std::size_t>(v) * sw + u] = count ? sum / count : 0.0;
        }
    auto at = [&](int u, int v) { return small[static_cast<std::size_t>(std::clamp(v, 0, sh - 1)) * sw + std::clamp(u, 0, sw - 1)]; };
    GrayImage out(g.width, g.height);
    for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x) {
            const double sx = (x + 0.5) / fx - 0.5, sy = (y + 0.5) / fy - 0.5;
            const double bx = std::floor(sx), by = std::floor(sy), tx = sx - bx, ty = sy - by;
            const int u = static_cast<int>(bx), v = static_cast<int>(by);
            const double value = (1 - ty) * ((1 - tx) * at(u, v) + tx * at(u + 1, v)) + ty * ((1 - tx) * at(u, v + 1) + tx * at(u + 1, v + 1));
            out.at(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(value), 0L, 255L));
        }
    return out;
}

namespace {
// Source taps (index, weight) of each output pixel along one axis of cut_region.
std::vector<std::vector<std::pair<int, double>>> axis_taps(double start, double extent, int n, int size) {
    std::vector<std::vector<std::pair<int, double>>> taps(static_cast<std::size_t>(n));
    const double s = extent / n;  // source pixels per output pixel
    for (int u = 0; u < n; ++u) {
        auto& t = taps[static_cast<std::size_t>(u)];
        auto add = [&](double index, double w) { t.emplace_back(std::clamp(static_cast<int>(index), 0, size - 1), w); };
        if (s > 1) {  // the area [a, b) of the source, pixel k covering [k, k+1)
            const double a = start + u * s, b = a + s;
            for (double k = std::floor(a); k < b; k += 1) add(k, (std::min(b, k + 1) - std::max(a, k)) / s);
        } else {  // bilinear at the output pixel's centre
            const double c = start + (u + 0.5) * s - 0.5, f = std::floor(c);
            add(f, 1 - (c - f));
            add(f + 1, c - f);
        }
    }
    return taps;
}
}  // namespace

GrayImage cut_region(const GrayImage& g, const Box& r, int w, int h) {
    const auto xs = axis_taps(r.x, r.w, w, g.width), ys = axis_taps(r.y, r.h, h, g.height);
    GrayImage out(w, h);
    for (int v = 0; v < h; ++v)
        for (int u = 0; u < w; ++u) {
            double sum = 0;
            for (const auto& [y, wy] : ys[static_cast<std::size_t>(v)])
                for (const auto& [x, wx] : xs[static_cast<std::size_t>(u)]) sum += wy * wx * g.at(x, y);
            out.at(u, v) = static_cast<std::uint8_t>(std::clamp(std::lround(sum), 0L, 255L));
        }
    return out;
}

WindowFilter keep_clear_filter(const Dataset& data, const std::vector<Image>& images,
                               const std::vector<ImageTransform>& transforms, const TrainConfig& cfg) {
    if (data.keep_clear.empty()) return {};
    const std::size_t n = data.negatives.size();
    auto boxes = std::make_shared<std::vector<std::vector<Box>>>(images.size());
    bool any = false;
    for (std::size_t k = 0; k < n; ++k) {
        const auto it = data.keep_clear.find(data.negatives[k]);
        if (it == data.keep_clear.end()) continue;
        any = true;
        (*boxes)[k] = it->second;
        for (std::size_t t = 0; t < transforms.size(); ++t)
            for (const Box& b : it->second)
                (*boxes)[(t + 1) * n + k].push_back(transformed_box(b, images[k].width, images[k].height, transforms[t]));
    }
    if (!any) return {};
    const double ww = cfg.window.width, wh = cfg.window.height, max_iou = cfg.data.negative_max_iou;
    const ObjectBox object = cfg.object_box;
    return [boxes, ww, wh, max_iou, object](const WindowRef& r) {
        const auto& clear = (*boxes)[r.image];
        if (clear.empty()) return true;
        const Box window{r.x * r.scale, r.y * r.scale, ww * r.scale, wh * r.scale};
        return negative_window_allowed(window, object, clear, max_iou);
    };
}

std::vector<std::uint8_t> calibration_mask(const std::vector<PositiveCrop>& crops, std::size_t count, int every) {
    if (every <= 0 || crops.empty()) return {};
    Dataset sources;  // the held-out split's rule, over these crops' source photos
    sources.positives = crops;
    const HeldOutSplit split = make_every_kth_split(sources, every);
    std::vector<std::uint8_t> mask(count, 0);
    for (std::size_t i = 0; i < count; ++i) mask[i] = split.holds(crops[i % crops.size()]) ? 1 : 0;
    return mask;
}

std::vector<Image> load_crops(const std::vector<PositiveCrop>& crops, const ImageLoader& loader, int ww, int wh,
                              const DataConfig& data, std::uint64_t seed, bool colour) {
    std::vector<Image> out(crops.size());
    std::mutex m;
    std::string first_error;
    std::size_t first_index = crops.size();
    // Each file decoded once: an annotated image gives a crop per object, and flips repeat files.
    std::map<std::filesystem::path, std::vector<std::size_t>> by_file;
    for (std::size_t i = 0; i < crops.size(); ++i) by_file[crops[i].path].push_back(i);
    const std::vector<std::pair<std::filesystem::path, std::vector<std::size_t>>> files(by_file.begin(), by_file.end());
    tbb::parallel_for(std::size_t{0}, files.size(), [&](std::size_t f) {
        const std::vector<std::size_t>& indices = files[f].second;
        std::size_t i = indices.front();
        try {
            const Image image = keep_channels(loader(files[f].first), colour);
            std::vector<GrayImage> planes;  // split once for all the regions cut from this file
            for (std::size_t k : indices) {
                i = k;
                const PositiveCrop& c = crops[i];
                if (c.width > 0 && planes.empty()) planes = split_channels(image);
                Image g = c.width > 0 ? per_channel(planes, [&](const GrayImage& p) { return cut_region(p, c.region, c.width, c.height); })
                                      : image;
                if (g.width < ww || g.height < wh)
                    throw TrainError(crops[i].path.string() + ": crop " + std::to_string(g.width) + "x" +
                                     std::to_string(g.height) + " is smaller than the " + std::to_string(ww) + "x" +
                                     std::to_string(wh) + " window");
                if (c.flip) g = transformed(g, ImageTransform::Mirror);
                out[i] = std::move(g);
            }
        } catch (const std::exception& e) {
            std::lock_guard lock(m);
            if (i < first_index) first_index = i, first_error = e.what();
        }
    });
    if (first_index < crops.size()) throw TrainError(first_error);
    const std::size_t n = out.size(), copies = static_cast<std::size_t>(std::max(data.jitter_copies, 0));
    out.resize(n * (1 + copies));
    tbb::parallel_for(std::size_t{0}, n * copies, [&](std::size_t i) {
        RandomStream rng = streams::positive_jitter(seed, i / n, i % n);
        auto uniform = [&](double r) { return r * (2 * rng.unit() - 1); };  // in [−r, r)
        const double degrees = uniform(data.jitter_rotate), scale = 1 + uniform(data.jitter_scale);
        const double dx = uniform(data.jitter_shift), dy = uniform(data.jitter_shift);
        out[n + i] = per_channel(out[i % n], [&](const GrayImage& p) { return jittered(p, degrees, scale, dx, dy); });
        // Drawn only when asked for, so that configurations without it keep their copies.
        if (data.jitter_low_res > 1) {
            const double factor = 1 + (data.jitter_low_res - 1) * rng.unit();
            out[n + i] = per_channel(out[n + i], [factor](const GrayImage& p) { return low_res(p, factor); });
        }
    });
    return out;
}

void visit_positives(const std::vector<Image>& crops, FeatureNeeds needs, GradientParams gradient, int ww, int wh,
                     const WindowSink& sink, std::size_t count) {
    tbb::parallel_for(std::size_t{0}, std::min(count, crops.size()), [&](std::size_t i) {
        LevelFeatures f;
        compute_image_features(crops[i], needs, gradient, f);
        sink(i, f, (crops[i].width - ww) / 2, (crops[i].height - wh) / 2);
    });
}

void visit_windows(const std::vector<WindowRef>& refs, const std::vector<Image>& images, std::size_t first_slot,
                   FeatureNeeds needs, GradientParams gradient, const WindowSink& sink) {
    std::map<std::uint32_t, std::vector<std::size_t>> by_image;
    for (std::size_t i = 0; i < refs.size(); ++i) by_image[refs[i].image].push_back(i);
    std::vector<std::pair<std::uint32_t, std::vector<std::size_t>>> groups(by_image.begin(), by_image.end());
    tbb::parallel_for(std::size_t{0}, groups.size(), [&](std::size_t g) {
        const Image& img = images[groups[g].first];
        std::vector<std::size_t> idx = groups[g].second;
        std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return refs[a].scale < refs[b].scale; });
        FramePyramid frame;
        frame.reset(img.view(), img.channels == 3, needs.gray_integral);
        std::vector<PyramidLevel> levels;  // the windows' levels, as the detector plans them
        for (std::size_t i : idx)
            if (levels.empty() || levels.back().scale != refs[i].scale) levels.push_back(pyramid_level(img.width, img.height, refs[i].scale));
        frame.prepare(levels);
        FramePyramid::Level level;
        LevelFeatures f;
        std::size_t current = 0;
        for (std::size_t k = 0; k < idx.size(); ++k) {
            const WindowRef& r = refs[idx[k]];
            if (k == 0 || r.scale != refs[idx[k - 1]].scale) {
                frame.level(levels[current++], level);
                compute_level_features(level.gray(), needs, gradient, f, level.colour());
            }
            sink(first_slot + idx[k], f, r.x, r.y);
        }
    });
}

std::vector<WindowRef> random_windows(const std::vector<Image>& images, std::size_t count, int ww, int wh,
                                      double scale_step, RandomStream rng, const WindowFilter& allowed) {
    std::vector<std::vector<PyramidLevel>> plans(images.size());
    std::vector<std::uint32_t> usable;
    for (std::size_t i = 0; i < images.size(); ++i) {
        plans[i] = plan_pyramid(images[i].width, images[i].height, ww, wh, scale_step);
        if (!plans[i].empty()) usable.push_back(static_cast<std::uint32_t>(i));
    }
    if (usable.empty()) throw TrainError("no negative image is as large as the window");
    std::vector<WindowRef> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        for (int attempt = 0; attempt < 1000; ++attempt) {
            WindowRef r;
            r.image = usable[rng.below(usable.size())];
            const auto& levels = plans[r.image];
            const PyramidLevel& l = levels[rng.below(levels.size())];
            r.scale = l.scale;
            r.x = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(l.width - ww + 1)));
            r.y = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(l.height - wh + 1)));
            if (!allowed || allowed(r)) {
                out.push_back(r);
                break;
            }
        }
    return out;
}

std::vector<WindowRef> subsample(const std::vector<WindowRef>& refs, std::size_t target, RandomStream rng,
                                 std::vector<WindowRef>* rest) {
    if (rest) rest->clear();
    if (refs.size() <= target) return refs;
    std::vector<std::uint32_t> idx = first_of_shuffle(refs.size(), target, rng);
    std::sort(idx.begin(), idx.end());
    std::vector<WindowRef> out;
    out.reserve(target);
    for (std::uint32_t i : idx) out.push_back(refs[i]);
    if (rest) {
        rest->reserve(refs.size() - target);
        std::size_t next = 0;  // in idx, the next chosen index
        for (std::size_t i = 0; i < refs.size(); ++i) {
            if (next < idx.size() && idx[next] == i) ++next;
            else rest->push_back(refs[i]);
        }
    }
    return out;
}

std::vector<std::uint32_t> first_of_shuffle(std::size_t n, std::size_t t, RandomStream rng) {
    std::unordered_map<std::size_t, std::uint32_t> moved;  // position -> entry, where not the identity
    const auto entry = [&](std::size_t at) {
        const auto it = moved.find(at);
        return it == moved.end() ? static_cast<std::uint32_t>(at) : it->second;
    };
    std::vector<std::uint32_t> out(t);
    for (std::size_t i = 0; i < t; ++i) {
        const std::size_t j = i + rng.below(n - i);
        const std::uint32_t here = entry(i);
        out[i] = entry(j);
        moved[j] = here;  // position i is never read again
    }
    return out;
}

}  // namespace cascadekit::detail
