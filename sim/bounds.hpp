#pragma once

// Lower bounds on the instance-hours any fleet policy needs for a trace
// (docs/det-sim.md, after cost_simulation.md section 3), with G GPUs per
// instance and b seconds billed before an instance is usable:
//   work   sum of gpus * duration / G: delaying jobs removes no work;
//   pack   integral of ceil(D(t) / G) over time, D(t) the GPUs in use when
//          every job starts at its submit time (free repacking);
//   clairvoyant   pack split into levels k = 1, 2, ...; each level pays its
//          on-time, one boot b when it first turns on, and min(gap, b) per
//          idle gap (bridging a gap shorter than a boot is cheaper).
// Pure; O(n log n) in the number of jobs.

#include "sim/trace.hpp"

namespace det::sim {

struct lower_bounds {
  double work_h = 0;
  double pack_h = 0;
  double clairvoyant_h = 0;
  /// Peak of D(t): GPUs in use at once under the zero-wait schedule.
  long long zero_wait_peak_gpus = 0;
};

[[nodiscard]] lower_bounds compute_bounds(const std::vector<job>& jobs,
                                          int gpus_per_instance, double boot_s);

} // namespace det::sim
