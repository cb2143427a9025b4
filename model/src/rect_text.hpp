#pragma once
// Internal: how validation messages print rectangles and windows.
#include <string>

#include "cascadekit/features/geometry.hpp"
#include "cascadekit/model/cascade.hpp"

namespace cascadekit::detail {

inline std::string rect_text(const Rect& r) {
    return "(x=" + std::to_string(r.x) + ", y=" + std::to_string(r.y) + ", w=" + std::to_string(r.w) +
           ", h=" + std::to_string(r.h) + ")";
}
inline std::string window_text(const CascadeModel& m) {
    return std::to_string(m.window_width) + "x" + std::to_string(m.window_height) + " window";
}

}  // namespace cascadekit::detail
