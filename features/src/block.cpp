#include "cascadekit/features/block.hpp"

#include "cascadekit/features/block_math.hpp"

namespace cascadekit {

std::string_view to_string(BlockNorm norm) { return kBlockNormNames.name(norm); }
bool parse_block_norm(std::string_view text, BlockNorm& out) { return kBlockNormNames.parse(text, out); }

void normalise_block(BlockDescriptor& v, const HogParams& params) {
    block_math::normalise(v.data(), params.norm, params.epsilon, params.hys_clip);
}

void block_descriptor(const std::uint32_t* origin, std::size_t row_stride, const Rect& block,
                      const HogParams& params, BlockDescriptor& out) {
    const std::size_t xs[3] = {static_cast<std::size_t>(block.x), static_cast<std::size_t>(block.x + block.w / 2),
                               static_cast<std::size_t>(block.x + block.w)};
    const std::size_t ys[3] = {static_cast<std::size_t>(block.y), static_cast<std::size_t>(block.y + block.h / 2),
                               static_cast<std::size_t>(block.y + block.h)};
    const std::uint32_t* p[3][3];
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) p[j][i] = origin + ys[j] * row_stride + xs[i] * kOrientationBins;
    constexpr float kToGray = 1.0f / kMagnitudeScale;
    int k = 0;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i)
            for (int b = 0; b < kOrientationBins; ++b, ++k) {
                const std::uint32_t s = p[j + 1][i + 1][b] - p[j][i + 1][b] - p[j + 1][i][b] + p[j][i][b];
                out[k] = static_cast<float>(s) * kToGray;
            }
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
    block_descriptor(ih.point(ox, oy), ih.row_stride(), block, params, out);
}

}  // namespace cascadekit
