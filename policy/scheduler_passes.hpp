#pragma once

// Internal to pool_scheduler.cpp: the two policies, each filling `out`.

#include "policy/capacity.hpp"
#include "policy/scheduler_types.hpp"
#include "policy/slot_index.hpp"

namespace det::policy::detail {

void run_priority(const pool_snapshot& snapshot, const scheduler_config& config,
                  slot_index& index, capacity_check& capacity,
                  schedule_result& out);

void run_fair_share(const pool_snapshot& snapshot, slot_index& index,
                    capacity_check& capacity, schedule_result& out);

} // namespace det::policy::detail
