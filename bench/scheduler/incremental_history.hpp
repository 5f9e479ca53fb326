#pragma once

// bench_scheduler's incremental part: passes of policy::incremental_scheduler
// on a pool that changes between passes, against the full pass on the same
// view (see incremental_history.cpp).

#include "policy/scheduler_types.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace det::bench {

struct history_scale {
  const char* name;
  int agents;
  int pending;
  int runs;
  std::function<policy::pool_snapshot(int, int, uint32_t)> make;
};

struct history_policy {
  const char* name;
  policy::scheduler_config config;
};

void run_incremental_history(const std::vector<history_scale>& scales,
                             const std::vector<history_policy>& policies);

} // namespace det::bench
