#pragma once
// Internal (features): how IntegralImage and IntegralHistogram build one table on several threads
// with every table entry written once. The image's rows are split into bands; each band's column
// sums are formed first, then (sums_above_bands) turned into the sums of every row above the band,
// then (carry_row) into the table row just above the band, from which the band integrates its rows
// as the one-pass path does. Unsigned sums wrap modulo 2^32, so the table is the same whatever the
// bands and threads.
#include <cstddef>
#include <cstdint>
#include <utility>

namespace cascadekit::detail {

struct Bands {
    int n = 1;     // bands; 1: one pass on one thread
    int size = 0;  // rows a band (the last may have fewer)
    // Rows [first, last) of band b of an image `height` rows tall.
    std::pair<int, int> rows(int b, int height) const;
};

// About 4 bands a thread of the current arena (enough for work stealing to even out threads of
// unequal speed), each at least 8 rows; one band when one thread may run.
Bands plan_bands(int height);

// sums[b·stride, b·stride + used) hold band b's column sums; afterwards, the sums of every band
// before it (exclusive running sums over the bands, column chunks in parallel).
void sums_above_bands(std::uint32_t* sums, int n_bands, std::size_t stride, std::size_t used);

// In place: c[0, w·k) holds per-column sums, k components a column; afterwards c[0, (w+1)·k) is the
// table row whose point x + 1 is the sum of columns 0 … x (point 0 zero). c has room for w + 1 points.
void carry_row(std::uint32_t* c, int w, int k);

}  // namespace cascadekit::detail
