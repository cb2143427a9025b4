#include "cascadekit/features/block.hpp"

#include "cascadekit/features/block_math.hpp"

namespace cascadekit {

std::string_view to_string(BlockNorm norm) { return kBlockNormNames.name(norm); }
bool parse_block_norm(std::string_view text, BlockNorm& out) { return kBlockNormNames.parse(text, out); }

void normalise_block(BlockDescriptor& v, const HogParams& params) {
    block_math::normalise(v.data(), params.norm, params.epsilon, params.hys_clip);
}

void block_descriptor(const std::uint32_t* origin, std::size_t row_stride, const Rect& block,
                      const HogParams& params, BlockDescriptor& out, int grid) {
    const BlockCorners c = block_corners(block, row_stride, grid);
    int k = 0;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i)
            for (int b = 0; b < kOrientationBins; ++b, ++k) out[k] = cell_bin(origin, c, i, j, b);
    normalise_block(out, params);
}

void block_descriptor(const GradientPlane& plane, int ox, int oy, const Rect& block, const HogParams& params,
                      BlockDescriptor& out) {
    constexpr float kToGray = 1.0f / kMagnitudeScale;
    const int cw = block.w / 2, ch = block.h / 2;
    int k = 0;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            const auto s = plane.rect_sum({ox + block.x + i * cw, oy + block.y + j * ch, cw, ch});
            for (int b = 0; b < kOrientationBins; ++b, ++k) out[k] = static_cast<float>(s[b]) * kToGray;
        }
    normalise_block(out, params);
}

void block_descriptor(const IntegralHistogram& ih, int ox, int oy, const Rect& block,
                      const HogParams& params, BlockDescriptor& out) {
    block_descriptor(ih.point(ox, oy), ih.row_stride(), block, params, out, ih.grid());
}

}  // namespace cascadekit
