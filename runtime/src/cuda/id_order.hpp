#pragma once
// Internal (CUDA backend, host side): a frame's accepted windows come back in survivor order
// (compaction by atomics); the CPU's order is by window id. Plain C++, header only: built in every
// configuration, so that CPU-only builds test it (tests/runtime_test.cpp). E is any type with a
// std::uint32_t member `id`; ids are unique.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace cascadekit::cuda {

// Sorts by id: a least-significant-digit radix sort of 11-bit digits, as many passes as the
// largest id needs (two for a frame of up to 4 M windows); std::sort for few. The first
// bootstrapping passes accept tens of thousands of windows a frame, whose sorting was a fifth of
// such a pass on the host.
template <class E>
void sort_by_id(std::vector<E>& v) {
    if (v.size() < 512) {
        std::sort(v.begin(), v.end(), [](const E& a, const E& b) { return a.id < b.id; });
        return;
    }
    std::uint32_t largest = 0;
    for (const E& e : v) largest = std::max(largest, e.id);
    constexpr int kDigit = 11;
    constexpr std::uint32_t kMask = (1u << kDigit) - 1;
    std::vector<E> other(v.size());
    for (int shift = 0; shift < 32 && (largest >> shift) != 0; shift += kDigit) {
        std::uint32_t start[kMask + 1] = {};
        for (const E& e : v) ++start[(e.id >> shift) & kMask];
        std::uint32_t at = 0;
        for (std::uint32_t& c : start) at += std::exchange(c, at);
        for (const E& e : v) other[start[(e.id >> shift) & kMask]++] = e;
        v.swap(other);
    }
}

// The entries that sorting v by id would put at `ranks` (each below v.size()), in the order of
// `ranks`, without sorting v; every id is below id_bound. A bootstrapping pass keeps at most 80 of
// the tens of thousands of windows a frame of its first passes accepts (KeepRanks), and sorting
// them all was most of finishing such a frame. Here one pass marks the ids in a bitmap (a bit a
// window of the frame: 43 KB for 640×480 at stride 2), the ranks are found by counting bits, and
// a second pass picks the entries of the ids found: about twice as fast as sorting where a
// frame accepts 1 window in 15 (a pass's 23,000 a frame), as fast at 1 in 30. Few entries, many
// ranks, or fewer than 1 window in 32 accepted (a bitmap of more words than half the entries):
// sorted instead.
template <class E>
std::vector<E> at_id_ranks(std::vector<E> v, const std::vector<std::uint32_t>& ranks, std::uint64_t id_bound) {
    std::vector<E> picked;
    picked.reserve(ranks.size());
    const std::size_t words = static_cast<std::size_t>((id_bound + 63) / 64);
    if (v.size() < 2048 || ranks.size() * 32 > v.size() || words * 2 > v.size()) {
        sort_by_id(v);
        for (std::uint32_t k : ranks) picked.push_back(v[k]);
        return picked;
    }
    std::vector<std::uint64_t> bits(words, 0);
    for (const E& e : v) bits[e.id >> 6] |= std::uint64_t{1} << (e.id & 63);
    std::vector<std::uint32_t> before(words + 1, 0);  // set bits in the words before word w
    for (std::size_t w = 0; w < words; ++w) before[w + 1] = before[w] + static_cast<std::uint32_t>(std::popcount(bits[w]));
    // The id at each rank, and where it goes: (id, place in `ranks`), sorted by id.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> wanted;
    wanted.reserve(ranks.size());
    for (std::size_t j = 0; j < ranks.size(); ++j) {
        const std::uint32_t k = ranks[j];
        const std::size_t w = static_cast<std::size_t>(std::upper_bound(before.begin(), before.end(), k) - before.begin()) - 1;
        std::uint64_t word = bits[w];
        for (std::uint32_t skip = k - before[w]; skip > 0; --skip) word &= word - 1;  // drop the lower set bits
        wanted.emplace_back(static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(word))),
                            static_cast<std::uint32_t>(j));
    }
    std::sort(wanted.begin(), wanted.end());
    // Only the wanted ids' bits stay set.
    std::fill(bits.begin(), bits.end(), 0);
    for (const auto& [id, place] : wanted) bits[id >> 6] |= std::uint64_t{1} << (id & 63);
    picked.resize(ranks.size());
    for (const E& e : v)
        if ((bits[e.id >> 6] >> (e.id & 63)) & 1) {
            const auto at = std::lower_bound(wanted.begin(), wanted.end(), std::pair{e.id, std::uint32_t{0}});
            for (auto it = at; it != wanted.end() && it->first == e.id; ++it) picked[it->second] = e;
        }
    return picked;
}

}  // namespace cascadekit::cuda
