#include "cascadekit/features/block_pool.hpp"

#include <stdexcept>
#include <string>

namespace cascadekit {

namespace {
// Position step by the block's shorter side (Zhu et al., CVPR 2006; Bilgiç, MIT 2010): small blocks are placed densely.
int zhu_step(int shorter_side) { return shorter_side < 16 ? 4 : shorter_side < 24 ? 6 : 8; }

void add_positions(std::vector<Rect>& pool, int w, int h, int step, int win_w, int win_h) {
    if (w > win_w || h > win_h) return;
    for (int y = 0; y + h <= win_h; y += step)
        for (int x = 0; x + w <= win_w; x += step) pool.push_back({x, y, w, h});
}
}  // namespace

std::vector<std::string_view> block_pool_names() { return {"zhu", "zhu-grid2", "zhu-grid4", "zhu-grid8", "dalal-triggs"}; }

std::string block_pool_choices() {
    const auto names = block_pool_names();
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
        out += names[i];
    }
    return out;
}

int block_pool_grid(std::string_view name) {
    if (name == "zhu-grid2") return 2;
    if (name == "zhu-grid4") return 4;
    if (name == "zhu-grid8") return 8;
    return 1;
}

std::vector<Rect> make_block_pool(std::string_view name, int win_w, int win_h, int min_side) {
    std::vector<Rect> pool;
    const int g = block_pool_grid(name);
    if (name == "zhu" || g > 1) {
        if (min_side < 4 || min_side % 2 != 0)
            throw std::invalid_argument("block pool '" + std::string(name) + "': the smallest block side must be even and >= 4, not " +
                                        std::to_string(min_side));
        // Zhu's shapes: squares, then tall 1:2, then wide 2:1, by increasing shorter side s. Zhu's
        // pool: every even s from min_side, positions every zhu_step(s); on a grid of G: s a
        // multiple of 2G (cells of whole grid steps), positions every G.
        const int first = g > 1 ? (min_side + 2 * g - 1) / (2 * g) * (2 * g) : min_side;
        const int side_step = g > 1 ? 2 * g : 2;
        auto step = [&](int s) { return g > 1 ? g : zhu_step(s); };
        for (int s = first; s <= win_w && s <= win_h; s += side_step) add_positions(pool, s, s, step(s), win_w, win_h);
        for (int s = first; s <= win_w && 2 * s <= win_h; s += side_step) add_positions(pool, s, 2 * s, step(s), win_w, win_h);
        for (int s = first; 2 * s <= win_w && s <= win_h; s += side_step) add_positions(pool, 2 * s, s, step(s), win_w, win_h);
    } else if (name == "dalal-triggs") {
        add_positions(pool, 16, 16, 8, win_w, win_h);
    } else {
        throw std::invalid_argument("unknown block pool '" + std::string(name) + "' (expected " + block_pool_choices() + ")");
    }
    return pool;
}

}  // namespace cascadekit
