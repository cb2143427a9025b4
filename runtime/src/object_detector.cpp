#include "cascadekit/runtime/object_detector.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace cascadekit {

BoxSettings box_settings(const OperatingPoint& point) {
    BoxSettings s;
    s.pad = decimal_value(point.pad);
    s.fusion = fusion_params(point);
    s.threshold = decimal_value(point.threshold);
    return s;
}

void validate(const BoxSettings& s) {
    if (!(s.pad >= 0 && s.pad <= 1))
        throw std::invalid_argument("pad must be in [0, 1] (a share of the image height), got " + std::to_string(s.pad));
    if (s.fusion.method == FusionMethod::Nms && !(s.fusion.nms_iou > 0 && s.fusion.nms_iou <= 1))
        throw std::invalid_argument("NMS IoU must be in (0, 1], got " + std::to_string(s.fusion.nms_iou));
    if (s.min_neighbors < 0) throw std::invalid_argument("min neighbors must be >= 0, got " + std::to_string(s.min_neighbors));
    if (s.min_neighbors > 0 && s.fusion.method == FusionMethod::None)
        throw std::invalid_argument("min neighbors needs fusion (meanshift or nms), not none");
    if (std::isnan(s.threshold)) throw std::invalid_argument("threshold must be a number, got nan");
}

int pad_pixels(double pad, int height) { return static_cast<int>(std::lround(pad * height)); }

OperatingPoint overridden(OperatingPoint p, const PointOverrides& o) {
    auto set = [](float& field, const std::optional<double>& v) {
        if (v) field = static_cast<float>(*v);
    };
    set(p.threshold, o.threshold);
    set(p.scale_step, o.scale_step);
    set(p.min_scale, o.min_scale);
    set(p.pad, o.pad);
    set(p.nms_iou, o.nms_iou);
    if (o.stride) p.stride = *o.stride;
    if (o.level_pad) p.level_pad = *o.level_pad;
    if (o.fuse) p.fuse = *o.fuse;
    return p;
}

Operation operation(const CascadeModel& model, const ObjectOptions& o) {
    const OperatingPoint p = overridden(model.operating, o.point);
    Operation op;
    op.scan = detect_params(p);
    op.scan.max_scale = o.max_scale;
    if (o.min_size > 0) op.scan.min_scale = o.min_size / model.window_height;
    if (o.max_size > 0) op.scan.max_scale = o.max_size / model.window_height;
    op.scan.scale_windows = o.scale_windows;
    op.scan.approximate_hog = o.approximate_hog;
    op.scan.approximate_lbp = o.approximate_lbp;
    op.boxes = box_settings(p);
    const FusionMethod method = op.boxes.fusion.method;
    const double iou = op.boxes.fusion.nms_iou;
    op.boxes.fusion = o.mean_shift;
    op.boxes.fusion.method = method;
    op.boxes.fusion.nms_iou = iou;
    op.boxes.min_neighbors = o.min_neighbors;
    op.boxes.window_boxes = o.window_boxes;
    validate(op.scan);
    validate(op.boxes);
    return op;
}

std::vector<FoundObject> objects_from_windows(std::vector<Detection> raw, int pad, int window_width, int window_height,
                                              const ObjectBox& object_box, const BoxSettings& s) {
    for (Detection& d : raw) d.x -= pad, d.y -= pad;  // back to the unpadded image
    std::vector<Detection> fused = fuse(raw, window_width, window_height, s.fusion);
    std::erase_if(fused, [&](const Detection& d) { return d.score < s.threshold || d.support <= s.min_neighbors; });
    std::vector<FoundObject> out;
    out.reserve(fused.size());
    for (const Detection& d : fused)
        out.push_back({s.window_boxes ? d.box() : object_in_window(object_box, d.x, d.y, d.w, d.h), d});
    return out;
}

namespace {
// The image with `pad` pixels of its edge pixels replicated on every side (OpenCV's
// BORDER_REPLICATE), so that windows reach past the image's edges: people cut by the frame, or
// filling it (OpenCV's detectMultiScale pads likewise).
struct PaddedImage {
    std::vector<std::uint8_t> pixels;
    ImageView view;
};

PaddedImage padded(const ImageView& v, int pad) {
    const int c = v.channels;
    const std::size_t row_bytes = static_cast<std::size_t>(v.width + 2 * pad) * static_cast<std::size_t>(c);
    PaddedImage p;
    p.pixels.resize(row_bytes * static_cast<std::size_t>(v.height + 2 * pad));
    for (int y = 0; y < v.height + 2 * pad; ++y) {
        const std::uint8_t* row = v.data + static_cast<std::ptrdiff_t>(std::clamp(y - pad, 0, v.height - 1)) * v.stride;
        std::uint8_t* out = p.pixels.data() + static_cast<std::size_t>(y) * row_bytes;
        for (int x = 0; x < pad; ++x) std::memcpy(out + static_cast<std::ptrdiff_t>(x) * c, row, static_cast<std::size_t>(c));
        std::memcpy(out + static_cast<std::ptrdiff_t>(pad) * c, row, static_cast<std::size_t>(v.width) * static_cast<std::size_t>(c));
        const std::uint8_t* last = row + static_cast<std::ptrdiff_t>(v.width - 1) * c;
        for (int x = pad + v.width; x < v.width + 2 * pad; ++x)
            std::memcpy(out + static_cast<std::ptrdiff_t>(x) * c, last, static_cast<std::size_t>(c));
    }
    p.view = {p.pixels.data(), v.width + 2 * pad, v.height + 2 * pad, static_cast<std::ptrdiff_t>(row_bytes), c, v.order};
    return p;
}

// The image as the scan sees it, with the image it came from.
struct ScannedImage {
    BulkImage original;
    PaddedImage padding;
    int pad = 0;
    ImageView view() const { return pad > 0 ? padding.view : original.view; }
};

// Pads the image by `pad_share` of its height. A padded image that holds no window gets an error naming its
// own size, its border and the pad share: the detector would name the padded size alone.
ScannedImage scanned(BulkImage original, double pad_share, const DetectParams& scan, const CascadeModel& m) {
    ScannedImage s;
    validate(original.view);
    s.pad = pad_pixels(pad_share, original.view.height);
    if (s.pad > 0) {
        const ImageView& v = original.view;
        const std::string why = window_fit_problem(v.width + 2 * s.pad, v.height + 2 * s.pad, m.window_width, m.window_height, scan);
        if (!why.empty()) {
            std::ostringstream out;  // default formatting: 0.25, not 0.250000
            out << "image " << v.width << "x" << v.height << " with a border of " << s.pad << " px (pad " << pad_share
                << " of its height): " << why;
            throw DetectError(out.str());
        }
        s.padding = padded(v, s.pad);
    }
    s.original = std::move(original);
    return s;
}

ObjectResult finished(DetectResult&& r, int pad, const CascadeModel& m, const BoxSettings& boxes) {
    ObjectResult out;
    out.raw_windows = r.detections.size();
    out.stats = std::move(r.stats);
    out.objects = objects_from_windows(std::move(r.detections), pad, m.window_width, m.window_height, m.object_box, boxes);
    return out;
}
}  // namespace

ObjectDetector::ObjectDetector(const CascadeModel& model, const ObjectOptions& options)
    : ObjectDetector(model, cascadekit::operation(model, options), options.bulk) {}

ObjectDetector::ObjectDetector(const CascadeModel& model, const Operation& op, const BulkOptions& bulk) : operation_(op) {
    validate(operation_.boxes);
    bulk_ = std::make_unique<BulkDetector>(model, operation_.scan, bulk);
}

ObjectDetector::~ObjectDetector() = default;

ObjectResult ObjectDetector::detect(const ImageView& image) { return detect(image, operation_.boxes); }

ObjectResult ObjectDetector::detect(const ImageView& image, const BoxSettings& boxes) {
    validate(boxes);
    const ScannedImage s = scanned({image, nullptr}, boxes.pad, operation_.scan, model());
    return finished(bulk_->detect(s.view()), s.pad, model(), boxes);
}

BulkTotals ObjectDetector::run(std::size_t count, const BulkDetector::Loader& load, const Consumer& consume,
                               const BulkDetector::Failure& failed) {
    return bulk_->run(
        count,
        [&](std::size_t i) {
            auto s = std::make_shared<ScannedImage>(scanned(load(i), operation_.boxes.pad, operation_.scan, model()));
            return BulkImage{s->view(), s};
        },
        [&](std::size_t i, DetectResult&& r, const BulkImage& image, double ms) {
            const ScannedImage& s = *static_cast<const ScannedImage*>(image.owner.get());
            consume(i, finished(std::move(r), s.pad, model(), operation_.boxes), s.original, ms);
        },
        failed);
}

const Operation& ObjectDetector::operation() const { return operation_; }
const CascadeModel& ObjectDetector::model() const { return bulk_->model(); }
std::string ObjectDetector::backend_name() const { return bulk_->backend_name(); }

}  // namespace cascadekit
