#pragma once
// One table per enum of its values' names, for every enum that appears in files, options and
// messages (block norms, backends, fusion methods, configuration choices): the name of a value,
// the value of a name, and the list of names for error messages. Keeps each pair of to_string /
// parse from being written by hand.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace cascadekit {

template <class E, std::size_t N>
struct EnumNames {
    std::array<std::pair<E, std::string_view>, N> items;

    constexpr std::string_view name(E value) const {
        for (const auto& [v, n] : items)
            if (v == value) return n;
        return "?";
    }
    constexpr bool parse(std::string_view text, E& out) const {
        for (const auto& [v, n] : items)
            if (n == text) {
                out = v;
                return true;
            }
        return false;
    }
    // "a, b or c"
    std::string choices() const {
        std::string s;
        for (std::size_t i = 0; i < N; ++i) s.append(i == 0 ? "" : i + 1 == N ? " or " : ", ").append(items[i].second);
        return s;
    }
};

}  // namespace cascadekit
