#pragma once
// Miss rate vs false positives per image, drawn as a PNG with OpenCV: the log-log plot of
// Dollár et al. (FPPI 1e-2 … 1e1, miss rate 0.05 … 1), one step curve per model or detection
// file, each named in the legend with its log-average miss rate. No Python needed.
#include <filesystem>
#include <string>
#include <vector>

#include "cascadekit/eval/curves.hpp"

namespace cascadekit::tools {

struct NamedCurve {
    std::string name;
    std::vector<CurvePoint> points;  // fppi_curve's output, or a --curve CSV read back
};

// Writes atomically (image_files.hpp's write_image); throws on an unwritable place.
void write_fppi_plot(const std::filesystem::path& png, const std::string& title, const std::vector<NamedCurve>& curves);

// A curve CSV written by cascade eval (--curve, --fppi, --faces: "fppi,miss_rate,threshold").
// Throws std::runtime_error naming the file and line of a malformed row.
std::vector<CurvePoint> read_curve_csv(const std::filesystem::path& csv);

}  // namespace cascadekit::tools
