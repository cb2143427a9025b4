#pragma once
// The 36-D HoG block descriptor (Zhu et al., CVPR 2006; Bilgiç, MIT 2010): a block is split into 2×2 cells, each cell
// gives a 9-bin histogram of gradient magnitude (gray levels), the 4 histograms are concatenated
// cell-major (top-left, top-right, bottom-left, bottom-right; bins 0..8 inside each) and normalised.
// The 3×3 grid of cell corners costs 9 points × 9 bins = 81 integral-histogram look-ups.
#include <array>
#include <string>
#include <string_view>

#include "cascadekit/features/enum_names.hpp"
#include "cascadekit/features/geometry.hpp"
#include "cascadekit/features/integral_histogram.hpp"

namespace cascadekit {

inline constexpr int kBlockDims = 36;
inline constexpr float kHysRenormEpsilon = 1e-3f;  // ε of L2-Hys's second pass (unit-scale input)
using BlockDescriptor = std::array<float, kBlockDims>;

enum class BlockNorm {
    L2,     // v / (‖v‖₂ + ε)
    L2Hys,  // L2, clip every component at hys_clip, L2 again with ε = kHysRenormEpsilon (Dalal & Triggs)
    L1Sqrt  // sqrt(v / (‖v‖₁ + ε))
};
inline constexpr EnumNames<BlockNorm, 3> kBlockNormNames{
    {{{BlockNorm::L2, "l2"}, {BlockNorm::L2Hys, "l2-hys"}, {BlockNorm::L1Sqrt, "l1-sqrt"}}}};
std::string_view to_string(BlockNorm norm);
// Parses "l2", "l2-hys", "l1-sqrt"; returns false for anything else.
bool parse_block_norm(std::string_view text, BlockNorm& out);

inline constexpr EnumNames<GrayGamma, 2> kGrayGammaNames{{{{GrayGamma::None, "none"}, {GrayGamma::Sqrt, "sqrt"}}}};
inline constexpr EnumNames<OrientationVotes, 2> kOrientationVotesNames{
    {{{OrientationVotes::Nearest, "nearest"}, {OrientationVotes::Split, "split"}}}};
inline constexpr EnumNames<GradientChannels, 2> kGradientChannelsNames{
    {{{GradientChannels::Gray, "gray"}, {GradientChannels::Colour, "colour"}}}};

// How blocks are computed and normalised. Stored in the model file, so the detector uses the
// trainer's values.
struct HogParams {
    BlockNorm norm = BlockNorm::L2;
    // ε in gray-level units of summed magnitude. Must be > 0: it makes a constant (gradient-free)
    // block give the zero vector instead of 0/0.
    float epsilon = 1.0f;
    float hys_clip = 0.2f;  // L2-Hys clipping level, as in Dalal & Triggs
    GrayGamma gamma = GrayGamma::None;  // gray-level compression before the gradients (gradient.hpp)
    OrientationVotes votes = OrientationVotes::Nearest;  // nearest bin or split between two (gradient_entry.hpp)
    GradientChannels channels = GradientChannels::Gray;  // gradients of the gray image or of the colour channels
    GradientParams gradient() const { return {gamma, votes}; }
    bool colour() const { return channels == GradientChannels::Colour; }
    friend bool operator==(const HogParams&, const HogParams&) = default;
};

// Normalises raw cell-histogram sums (gray levels) in place according to params.
void normalise_block(BlockDescriptor& v, const HogParams& params);

// Descriptor of block (offset by the window origin ox, oy) from an integral histogram.
// Requires: block.w and block.h even, the block inside the integral histogram's image, and its
// area <= kMaxExactRectArea; with a grid (IntegralHistogram::grid), the origin and the block's
// cell corners on it. Ensures: finite values; all zero for a gradient-free block.
void block_descriptor(const IntegralHistogram& ih, int ox, int oy, const Rect& block,
                      const HogParams& params, BlockDescriptor& out);

// The same from raw integral-histogram points: origin points at the 9 bins of the window's
// top-left point, row_stride is the distance (in uint32) between vertically adjacent points.
// Used for training windows stored as patches of a level's integral histogram: rectangle sums
// only take differences, so a patch gives exactly the values of the full histogram.
void block_descriptor(const std::uint32_t* origin, std::size_t row_stride, const Rect& block,
                      const HogParams& params, BlockDescriptor& out, int grid = 1);

// A block's 3×3 cell corners as offsets (in uint32) from a window's top-left integral point:
// at[j][i] for corner row j and column i (the block's top, middle and bottom; left, middle, right).
struct BlockCorners {
    std::size_t at[3][3];
};
// grid: the table's point spacing (IntegralHistogram::grid); the corners must lie on it.
inline BlockCorners block_corners(const Rect& block, std::size_t row_stride, int grid = 1) {
    const auto g = static_cast<std::size_t>(grid);
    const std::size_t xs[3] = {static_cast<std::size_t>(block.x) / g, static_cast<std::size_t>(block.x + block.w / 2) / g,
                               static_cast<std::size_t>(block.x + block.w) / g};
    const std::size_t ys[3] = {static_cast<std::size_t>(block.y) / g, static_cast<std::size_t>(block.y + block.h / 2) / g,
                               static_cast<std::size_t>(block.y + block.h) / g};
    BlockCorners c;
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) c.at[j][i] = ys[j] * row_stride + xs[i] * kOrientationBins;
    return c;
}
// Bin `bin` of cell (i, j) (column, row) of the block whose corners are c, for the window whose
// top-left integral point is `origin`: the descriptor's raw value in gray levels (before
// normalisation), as block_descriptor forms it.
inline float cell_bin(const std::uint32_t* origin, const BlockCorners& c, int i, int j, int bin) {
    const std::uint32_t* o = origin + bin;
    const std::uint32_t s = o[c.at[j + 1][i + 1]] - o[c.at[j][i + 1]] - o[c.at[j + 1][i]] + o[c.at[j][i]];
    return static_cast<float>(s) * (1.0f / kMagnitudeScale);
}

// The same from a gradient plane, summing the block's pixels: equal, bit for bit, to the
// integral histogram's descriptor of the same image.
void block_descriptor(const GradientPlane& plane, int ox, int oy, const Rect& block, const HogParams& params,
                      BlockDescriptor& out);

}  // namespace cascadekit
