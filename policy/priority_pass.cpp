// The priority policy of pool_scheduler.hpp.

#include "policy/preemption_planner.hpp"
#include "policy/scheduler_passes.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <utility>

namespace det::policy::detail {

namespace {

/// Indices of `pending` in (priority, order, index) order. Packs priority and
/// order into one integer key when orders allow it: sorting pairs of
/// integers is what keeps a 100,000-entry queue cheap.
std::vector<uint32_t>
queue_order(const std::vector<pending_allocation>& pending) {
  constexpr uint64_t order_bits = 56;
  constexpr uint64_t max_order = (uint64_t{1} << order_bits) - 1;
  std::vector<uint32_t> result(pending.size());
  bool packable = true;
  for (const auto& p : pending)
    packable = packable && p.order <= max_order;
  if (packable) {
    std::vector<std::pair<uint64_t, uint32_t>> keys(pending.size());
    for (size_t i = 0; i < pending.size(); ++i) {
      auto prio =
          static_cast<uint64_t>(std::clamp(pending[i].priority, 0, 255));
      keys[i] = {(prio << order_bits) | pending[i].order,
                 static_cast<uint32_t>(i)};
    }
    std::sort(keys.begin(), keys.end());
    for (size_t i = 0; i < keys.size(); ++i)
      result[i] = keys[i].second;
    return result;
  }
  for (size_t i = 0; i < pending.size(); ++i)
    result[i] = static_cast<uint32_t>(i);
  std::sort(result.begin(), result.end(), [&](uint32_t x, uint32_t y) {
    const auto& a = pending[x];
    const auto& b = pending[y];
    if (a.priority != b.priority)
      return a.priority < b.priority;
    if (a.order != b.order)
      return a.order < b.order;
    return x < y;
  });
  return result;
}

} // namespace

void run_priority(const pool_snapshot& snapshot, const scheduler_config& config,
                  slot_index& index, capacity_check& capacity,
                  schedule_result& out) {
  std::unique_ptr<preemption_planner> planner;
  std::vector<slot_index::part> fit;
  int level = INT_MIN;
  bool failed_in_level = false;
  bool blocked = false;
  for (auto i : queue_order(snapshot.pending)) {
    const auto& p = snapshot.pending[i];
    if (p.priority != level) {
      blocked = blocked || (failed_in_level && !config.preemption);
      level = p.priority;
      failed_in_level = false;
    }
    if (!capacity.can_ever_fit(p.slots)) {
      out.unschedulable.push_back(
          never_fits{p.id, *capacity.never_fits(p.slots)});
      continue;
    }
    if (blocked)
      continue;
    if (index.find_for(p, fit)) {
      out.placements.push_back(placement{p.id, index.take(fit)});
      continue;
    }
    failed_in_level = true;
    if (!config.preemption || snapshot.running.empty())
      continue;
    if (!planner)
      planner = std::make_unique<preemption_planner>(snapshot.running, index,
                                                     config.preemption_budget);
    planner->make_room(p, out.preemptions);
  }
}

} // namespace det::policy::detail
