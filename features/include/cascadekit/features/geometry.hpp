#pragma once
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

}  // namespace cascadekit
