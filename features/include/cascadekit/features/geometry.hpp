#pragma once
#include <algorithm>
#include <compare>
#include <cstdint>

namespace cascadekit {

// An axis-aligned rectangle in integer pixel units: the pixels x <= u < x+w, y <= v < y+h.
struct Rect {
    int x = 0;
    int y = 0;
    int w = 0;
    int h = 0;
    friend auto operator<=>(const Rect&, const Rect&) = default;
    friend bool operator==(const Rect&, const Rect&) = default;  // spelled out: nvcc needs it declared
    // True when the rectangle is non-empty and lies inside [0, width) x [0, height). Computed in
    // 64 bits: x + w cannot overflow for any int values (a crafted model file can hold any).
    bool inside(int width, int height) const {
        return w > 0 && h > 0 && x >= 0 && y >= 0 && std::int64_t{x} + w <= width && std::int64_t{y} + h <= height;
    }
    std::int64_t area() const { return std::int64_t{w} * h; }
};

// A box in real-valued image pixels: top-left (x, y), size (w, h). Detections, annotations and
// evaluation boxes are Boxes; Rect is for integer pixel sets (blocks, cells).
struct Box {
    double x = 0, y = 0, w = 0, h = 0;
    friend bool operator==(const Box&, const Box&) = default;
};

// Intersection over union; 0 when the union is empty.
inline double iou(const Box& a, const Box& b) {
    const double ix = std::max(0.0, std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x));
    const double iy = std::max(0.0, std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y));
    const double inter = ix * iy, uni = a.w * a.h + b.w * b.h - inter;
    return uni > 0 ? inter / uni : 0.0;
}

}  // namespace cascadekit
