// runtime/object_detector: image → boxes in one call, against the steps done by hand (pad the
// pixels, scan, take the pad off, fuse, threshold, object box), and its bulk run against its
// one-image call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cascadekit/runtime/object_detector.hpp"
#include "test_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;

namespace {

// Two bars, one cut by the left edge (only a pad lets a window reach it whole), on a
// three-channel image with a row stride wider than its pixels.
struct Scene {
    int width = 300, height = 260, channels = 3;
    std::ptrdiff_t stride = 300 * 3 + 17;
    std::vector<std::uint8_t> bytes;
    ImageView view() const { return {bytes.data(), width, height, stride, channels, ChannelOrder::BGR}; }
};

Scene bar_scene() {
    GrayImage g = constant_image(300, 260, 20);
    draw_bar(g, -20, 40, 1.0);
    draw_bar(g, 150, 60, 1.2);
    Scene s;
    s.bytes.assign(static_cast<std::size_t>(s.stride) * static_cast<std::size_t>(s.height), 0);
    for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x)
            for (int c = 0; c < 3; ++c)
                s.bytes[static_cast<std::size_t>(y * s.stride + x * 3 + c)] = static_cast<std::uint8_t>(g.at(x, y) + c);
    return s;
}

// The border by hand: every pixel of the padded image is the nearest pixel of the image.
std::vector<std::uint8_t> padded_by_hand(const Scene& s, int pad) {
    const int w = s.width + 2 * pad, h = s.height + 2 * pad;
    std::vector<std::uint8_t> out(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c) {
                const int sx = std::clamp(x - pad, 0, s.width - 1), sy = std::clamp(y - pad, 0, s.height - 1);
                out[(static_cast<std::size_t>(y) * w + x) * 3 + c] = s.bytes[static_cast<std::size_t>(sy * s.stride + sx * 3 + c)];
            }
    return out;
}

// The last step by hand, from a plain detector's raw windows.
std::vector<FoundObject> by_hand(const CascadeModel& m, const Operation& op, const Scene& s) {
    const int pad = static_cast<int>(std::lround(op.boxes.pad * s.height));
    const std::vector<std::uint8_t> pixels = padded_by_hand(s, pad);
    const ImageView view{pixels.data(), s.width + 2 * pad, s.height + 2 * pad, (s.width + 2 * pad) * 3, 3, ChannelOrder::BGR};
    std::vector<Detection> raw = Detector::create(m, op.scan, Backend::Cpu)->detect(view).detections;
    for (Detection& d : raw) d.x -= pad, d.y -= pad;
    std::vector<FoundObject> out;
    for (const Detection& d : fuse(raw, m.window_width, m.window_height, op.boxes.fusion)) {
        if (d.score < op.boxes.threshold || d.support <= op.boxes.min_neighbors) continue;
        out.push_back({op.boxes.window_boxes ? d.box() : Box{d.x + m.object_box.x * d.w, d.y + m.object_box.y * d.h,
                                                              m.object_box.w * d.w, m.object_box.h * d.h},
                       d});
    }
    return out;
}

void expect_same(const std::vector<FoundObject>& a, const std::vector<FoundObject>& b, const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t k = 0; k < a.size(); ++k) {
        EXPECT_EQ(a[k].window, b[k].window) << what << ", box " << k;
        EXPECT_EQ(a[k].box, b[k].box) << what << ", box " << k;
    }
}

CascadeModel people_like_bar_model() {
    CascadeModel m = bar_model();
    m.object_box = {0.375f, 0.0f, 0.25f, 1.0f};  // the bar's band of the window
    m.operating.stride = 4;
    m.operating.scale_step = 1.1f;
    m.operating.pad = 0.1f;
    m.operating.fuse = "nms";
    m.operating.threshold = 0.5f;
    return m;
}

}  // namespace

TEST(ObjectDetector, EqualsTheLastStepByHandForEveryOperatingPoint) {
    const Scene s = bar_scene();
    CascadeModel m = people_like_bar_model();
    std::size_t boxes = 0;
    for (const char* fuse : {"nms", "meanshift", "none"})
        for (const double pad : {0.0, 0.1, 0.25})
            for (const bool window_boxes : {false, true})
                for (const int neighbors : {0, 2}) {
                    if (neighbors > 0 && std::string(fuse) == "none") continue;
                    ObjectOptions o;
                    o.point.fuse = fuse;
                    o.point.pad = pad;
                    o.window_boxes = window_boxes;
                    o.min_neighbors = neighbors;
                    o.bulk.backend = Backend::Cpu;
                    ObjectDetector detector(m, o);
                    const std::string what = std::string(fuse) + ", pad " + std::to_string(pad) + (window_boxes ? ", windows" : "") +
                                             ", neighbours " + std::to_string(neighbors);
                    const ObjectResult r = detector.detect(s.view());
                    expect_same(r.objects, by_hand(m, detector.operation(), s), what);
                    boxes += r.objects.size();
                }
    EXPECT_GT(boxes, 0u);
}

TEST(ObjectDetector, APadFindsTheBarCutByTheEdge) {
    const Scene s = bar_scene();
    CascadeModel m = people_like_bar_model();
    auto left_boxes = [&](double pad) {
        ObjectOptions o;
        o.point.pad = pad;
        o.bulk.backend = Backend::Cpu;
        const ObjectResult r = ObjectDetector(m, o).detect(s.view());
        return std::count_if(r.objects.begin(), r.objects.end(), [](const FoundObject& f) { return f.window.x < 0; });
    };
    EXPECT_EQ(left_boxes(0.0), 0);
    EXPECT_GE(left_boxes(0.1), 1);
}

TEST(ObjectDetector, TheModelsOperatingPointWithSingleValuesOverridden) {
    CascadeModel m = people_like_bar_model();
    ObjectOptions o;
    EXPECT_EQ(operation(m, o).scan.stride, 4);
    EXPECT_DOUBLE_EQ(operation(m, o).scan.scale_step, 1.1);
    EXPECT_DOUBLE_EQ(operation(m, o).boxes.pad, 0.1);
    EXPECT_EQ(operation(m, o).boxes.fusion.method, FusionMethod::Nms);
    EXPECT_DOUBLE_EQ(operation(m, o).boxes.threshold, 0.5);
    o.point.stride = 2;
    o.point.threshold = -1.0;
    o.min_size = 64;   // window height 128: scale 0.5
    o.max_size = 256;  // scale 2
    const Operation op = operation(m, o);
    EXPECT_EQ(op.scan.stride, 2);
    EXPECT_DOUBLE_EQ(op.scan.scale_step, 1.1);
    EXPECT_DOUBLE_EQ(op.scan.min_scale, 0.5);
    EXPECT_DOUBLE_EQ(op.scan.max_scale, 2.0);
    EXPECT_DOUBLE_EQ(op.boxes.threshold, -1.0);
}

TEST(ObjectDetector, RefusesBadValuesByName) {
    const CascadeModel m = people_like_bar_model();
    auto refused = [&](const ObjectOptions& o, const std::string& words) {
        try {
            ObjectDetector d(m, o);
            ADD_FAILURE() << "accepted; expected: " << words;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    };
    ObjectOptions o;
    o.point.pad = 1.5;
    refused(o, "pad must be in [0, 1]");
    o = {};
    o.point.pad = std::numeric_limits<double>::quiet_NaN();
    refused(o, "pad must be in [0, 1]");
    o = {};
    o.point.nms_iou = 0.0;
    refused(o, "NMS IoU");
    o = {};
    o.point.fuse = "none";
    o.min_neighbors = 1;
    refused(o, "min neighbors needs fusion");
    o = {};
    o.point.threshold = std::numeric_limits<double>::quiet_NaN();
    refused(o, "threshold");
    o = {};
    o.point.stride = 0;
    refused(o, "stride");
}

TEST(ObjectDetector, APaddedImageTooSmallIsNamedWithItsBorder) {
    const CascadeModel m = people_like_bar_model();
    ObjectOptions o;
    o.point.pad = 0.25;
    o.bulk.backend = Backend::Cpu;
    ObjectDetector d(m, o);
    const GrayImage tiny = constant_image(30, 30, 0);
    try {
        d.detect(tiny.view());
        ADD_FAILURE() << "a 30x30 image was scanned";
    } catch (const DetectError& e) {
        EXPECT_NE(std::string(e.what()).find("image 30x30 with a border of 8 px (pad 0.25 of its height): image 46x46 is smaller"),
                  std::string::npos)
            << e.what();
    }
}

TEST(ObjectDetector, ARunGivesEachImageItsOneCallResultInOrder) {
    const CascadeModel m = people_like_bar_model();
    std::vector<GrayImage> images;
    for (int i = 0; i < 7; ++i) {
        GrayImage g = constant_image(200 + 20 * i, 240, 10);
        draw_bar(g, 10.0 * i, 30, 1.0 + 0.1 * i);
        images.push_back(std::move(g));
    }
    images.push_back(constant_image(30, 30, 0));  // too small: a failure in its place
    ObjectOptions o;
    o.bulk.backend = Backend::Cpu;
    ObjectDetector d(m, o);
    std::vector<std::size_t> order, failed;
    const BulkTotals totals = d.run(
        images.size(), [&](std::size_t i) { return BulkImage{images[i].view(), nullptr}; },
        [&](std::size_t i, ObjectResult&& r, const BulkImage& image, double) {
            order.push_back(i);
            EXPECT_EQ(image.view.data, images[i].view().data) << "the consumer sees the unpadded image";
            const ObjectResult one = d.detect(images[i].view());
            expect_same(r.objects, one.objects, "image " + std::to_string(i));
            EXPECT_EQ(r.stats, one.stats);
            EXPECT_EQ(r.raw_windows, one.raw_windows);
        },
        [&](std::size_t i, const std::string& message) {
            failed.push_back(i);
            EXPECT_NE(message.find("with a border of"), std::string::npos) << message;
        });
    EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(failed, (std::vector<std::size_t>{7}));
    EXPECT_EQ(totals.failed, 1u);
}

TEST(ObjectDetector, WindowsFoundElsewhereGoThroughTheSameLastStep) {
    std::vector<Detection> raw(3);
    raw[0] = {10, 10, 64, 128, 2.0f};
    raw[1] = {12, 10, 64, 128, 1.0f};  // overlaps raw[0]: suppressed by NMS
    raw[2] = {200, 10, 64, 128, 0.2f};  // below the threshold
    BoxSettings s;
    s.fusion.method = FusionMethod::Nms;
    s.threshold = 0.5;
    const std::vector<FoundObject> found = objects_from_windows(raw, 10, 64, 128, kPeopleObjectBox, s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].window.x, 0.0);  // the pad taken off
    EXPECT_EQ(found[0].window.support, 2);
    EXPECT_EQ(found[0].box, object_in_window(kPeopleObjectBox, 0, 0, 64, 128));
}
