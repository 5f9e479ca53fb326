#pragma once

// Internal to pool_scheduler.cpp: the two policies, each filling `out`.

#include "policy/capacity.hpp"
#include "policy/scheduler_types.hpp"
#include "policy/slot_index.hpp"

namespace det::policy::detail {

/// Indices of `pending` in (priority, order, index) order, the priority
/// clamped to 0..255 while every order fits in 56 bits. Linear when orders
/// never decrease along `pending` (as the master lists them), a sort
/// otherwise.
[[nodiscard]] std::vector<uint32_t>
queue_order(const std::vector<pending_allocation>& pending);

void run_priority(const pool_snapshot& snapshot, const scheduler_config& config,
                  slot_index& index, capacity_check& capacity,
                  schedule_result& out);

void run_fair_share(const pool_snapshot& snapshot, slot_index& index,
                    capacity_check& capacity, schedule_result& out);

} // namespace det::policy::detail
