#pragma once
// Helpers shared by the `cascade bench` subcommands.
#include <functional>
#include <string>
#include <vector>

#include "cascadekit/features/image.hpp"

namespace cascadekit::tools {

// A deterministic w×h image with natural-looking statistics (shading, rectangles, noise).
GrayImage bench_image(int w, int h);
// The middle value of v (the upper middle for an even count); v non-empty.
double median(std::vector<double> v);
// Median wall time in ms of `repeats` runs of work, after one untimed run when warm_up.
double median_ms(int repeats, const std::function<void()>& work, bool warm_up = true);
std::string cpu_name();
// "N hardware threads on M cores in P sockets" from /proc/cpuinfo (core and physical ids), or
// "N hardware threads" where it does not say.
std::string cpu_cores();
bool parse_size(const std::string& s, int& w, int& h);  // "WxH"

}  // namespace cascadekit::tools
