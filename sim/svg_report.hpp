#pragma once

// The picture of a det-sim comparison: one column per policy, side by
// side, and three rows on shared scales: instances billed (with the
// work bound's mean fleet as a dashed line), busy GPUs, jobs waiting, over
// the run's time. Each column is titled with its instance-hours, overhead
// and p95 wait. Pure: runs in, SVG text out.

#include "sim/bounds.hpp"
#include "sim/engine.hpp"

#include <string>
#include <vector>

namespace det::sim {

[[nodiscard]] std::string svg_report(const std::string& title,
                                     const std::vector<run_result>& runs,
                                     const lower_bounds& bounds,
                                     int gpus_per_instance);

} // namespace det::sim
