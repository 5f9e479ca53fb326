#pragma once

// One det-sim comparison: the jobs' lower bounds, then each policy's run
// over the same jobs and fleet, its figures, and the picture of them all.
// What det-sim prints and what the master's "what would it cost" route
// (POST /api/v1/resource-pools/{name}/simulate) answers. Pure: the same
// jobs, config and policies give the same bytes.

#include "sim/policies.hpp"
#include "sim/sim_config.hpp"
#include "sim/trace.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace det::sim {

struct comparison {
  /// The lower bounds (bounds_json) with `jobs`, `gpus_per_instance` and
  /// `max_instances`: det-sim's first line.
  nlohmann::json head;
  /// The figures of each policy's run (sim/figures.hpp), in `specs` order.
  std::vector<nlohmann::json> runs;
  /// The SVG report titled `title` (sim/svg_report.hpp); "" unless asked.
  std::string svg;
};

[[nodiscard]] comparison compare(const std::vector<job>& jobs,
                                 const sim_config& config,
                                 const std::vector<policy_spec>& specs,
                                 const std::string& title, bool with_svg);

} // namespace det::sim
