#pragma once

// One scheduling pass for one resource pool, as a pure function of a
// snapshot: the resource_pool actor calls it on its tick with the pool's
// agents, pending and running allocations, then turns the result into
// events. No I/O, no clock, no randomness; the same snapshot always gives
// the same result.
//
// priority (default): pending allocations in (priority, order) order; every
//   allocation of a priority level that fits is placed. When one does not
//   fit, less urgent levels wait (as upstream: nothing less urgent starts
//   while a more urgent allocation waits) unless preemption is on; then less
//   urgent allocations backfill free slots, and running allocations of lower
//   priority (or equal priority and later order) are asked to stop, newest
//   and least urgent first, until the waiting one would fit. Already
//   preempting allocations are counted as free first, so a pass never asks
//   more allocations to stop than the waiting ones need.
// fair_share: slots are shared between experiments by weighted max-min
//   fairness; an experiment under its share starts its allocations in order,
//   one over its share is asked to give slots back only when another is
//   starved and giving them back brings it closer to its share. Free slots
//   nobody is entitled to are lent to the least served experiments.
//
// Fitting: one agent when one has room (best fit: the fewest free slots left
// over; worst fit spreads), otherwise whole idle agents of one size whose
// sum is the request (see slot_index). All-or-nothing: a gang is placed
// whole or not at all. Allocations no agent set of the pool could ever hold
// are reported in `unschedulable` with a reason, never left waiting.
//
// Cost: ordering the pending list plus O(1) amortised work per pending
// allocation (buckets of agents by free-slot count; once no slot is free
// only the cheap "can it ever fit" check runs). The master lists pending
// trials by id, their queue order: ordering is then a counting sort by
// priority, linear (a list in any other order is sorted).

#include "policy/scheduler_types.hpp"

namespace det::policy {

[[nodiscard]] schedule_result schedule_pool(const pool_snapshot& snapshot,
                                            const scheduler_config& config);

} // namespace det::policy
