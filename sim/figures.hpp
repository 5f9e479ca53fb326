#pragma once

// The figures of one simulated run, as one JSON object (one line of
// det-sim's output): instance-hours and cost, overhead above the work
// bound, queue-wait percentiles overall, per group and per gang size, the
// longest wait of large gangs, jobs never started, work lost. Pure.

#include "sim/bounds.hpp"
#include "sim/engine.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace det::sim {

/// Nearest-rank percentile (p in (0, 100]) of `values`; 0 when empty.
[[nodiscard]] int64_t percentile(std::vector<int64_t> values, double p);

/// Gangs of at least this many GPUs count as "large" for the longest wait.
constexpr int large_gang_gpus = 16;

[[nodiscard]] nlohmann::json figures(const std::vector<job>& jobs,
                                     const run_result& r,
                                     const lower_bounds& b);

/// The bounds as a JSON object (instance-hours and peak).
[[nodiscard]] nlohmann::json bounds_json(const lower_bounds& b);

} // namespace det::sim
