#pragma once
// The threads a parallel loop started here may use: the current arena's, or fewer where a
// tbb::global_control limits them (cascade --threads), which the arena's concurrency does not
// show. At least 1.
#include <algorithm>
#include <cstddef>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

namespace cascadekit {

inline std::size_t worker_threads() {
    const auto arena = static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
    return std::max<std::size_t>(1, std::min(arena, tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)));
}

}  // namespace cascadekit
