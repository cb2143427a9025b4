#pragma once
// Pools of candidate blocks inside a detection window (Zhu et al., CVPR 2006; Bilgiç, MIT 2010).
#include <string>
#include <string_view>
#include <vector>

#include "cascadekit/features/geometry.hpp"

namespace cascadekit {

// "zhu": variable-size blocks (Zhu et al. 2006, Bilgiç 2010). Sizes step by 2 px: squares s×s,
//   tall w×2w and wide 2h×h, every side >= min_side (12 by default, as Zhu's; an even number >= 4:
//   smaller windows such as 24×24 faces have few blocks of side 12), inside the window. The position step follows the
//   shorter side: 4 px when it is < 16, 6 px when < 24, else 8 px; positions start at 0 and are
//   floor((W - w)/step) + 1 by floor((H - h)/step) + 1. In a 64×128 window this gives 5029 blocks,
//   Bilgiç's published count. Order: squares, then tall, then wide; each by increasing size, then
//   y, then x.
// "zhu-grid2", "zhu-grid4", "zhu-grid8" (grid G): Zhu's shapes (squares, tall 1:2, wide 2:1) on a
//   grid of G px: every side a multiple of 2G (so each cell's side is a multiple of G) and at
//   least min_side, at every position that is a multiple of G. Every corner of every cell then
//   lies on the grid, so a detector scanning at a stride that is a multiple of G needs the
//   integral histogram only at grid points (IntegralHistogram's grid). In a 64×128 window
//   zhu-grid4 has 2,521 blocks (min_side 12: sides 16, 24, … 64). Same order as "zhu".
// "dalal-triggs": the fixed 16×16 blocks at stride 8 (105 in 64×128), by y then x.
// Throws std::invalid_argument for an unknown name or a min_side that is odd or below 4.
inline constexpr int kZhuMinBlockSide = 12;
std::vector<Rect> make_block_pool(std::string_view name, int window_width, int window_height,
                                  int min_side = kZhuMinBlockSide);

// The grid a pool's blocks lie on: G for "zhu-gridG", 1 for the others (8 for dalal-triggs's
// blocks too, but its name promises the fixed blocks, not a grid).
int block_pool_grid(std::string_view name);

// The names make_block_pool accepts, and the same as text for messages: "zhu, …, or dalal-triggs".
std::vector<std::string_view> block_pool_names();
std::string block_pool_choices();

}  // namespace cascadekit
