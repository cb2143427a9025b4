#pragma once
#include <compare>

namespace cascadekit {

// An axis-aligned rectangle in integer pixel units: the pixels x <= u < x+w, y <= v < y+h.
struct Rect {
    int x = 0;
    int y = 0;
    int w = 0;
    int h = 0;
    friend auto operator<=>(const Rect&, const Rect&) = default;
    // True when the rectangle is non-empty and lies inside [0, width) x [0, height).
    bool inside(int width, int height) const {
        return w > 0 && h > 0 && x >= 0 && y >= 0 && x + w <= width && y + h <= height;
    }
};

}  // namespace cascadekit
