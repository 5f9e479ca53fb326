// The priority policy of pool_scheduler.hpp.

#include "policy/preemption_planner.hpp"
#include "policy/scheduler_passes.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <utility>

namespace det::policy::detail {

std::vector<uint32_t>
queue_order(const std::vector<pending_allocation>& pending) {
  constexpr uint64_t order_bits = 56;
  constexpr uint64_t max_order = (uint64_t{1} << order_bits) - 1;
  constexpr int levels = 256;
  std::vector<uint32_t> result(pending.size());
  bool packable = true;
  bool by_order = true; // orders never decrease along `pending`
  for (size_t i = 0; i < pending.size(); ++i) {
    packable = packable && pending[i].order <= max_order;
    by_order = by_order && (i == 0 || pending[i - 1].order <= pending[i].order);
  }
  auto level_of = [](const pending_allocation& p) {
    return static_cast<size_t>(std::clamp(p.priority, 0, levels - 1));
  };
  if (packable && by_order) {
    // The master lists pending trials by id, its queue order: a stable
    // counting sort by priority is then the whole sort, in linear time.
    std::vector<uint32_t> start(levels + 1, 0);
    for (const auto& p : pending)
      ++start[level_of(p) + 1];
    for (size_t l = 0; l < levels; ++l)
      start[l + 1] += start[l];
    for (size_t i = 0; i < pending.size(); ++i)
      result[start[level_of(pending[i])]++] = static_cast<uint32_t>(i);
    return result;
  }
  if (packable) {
    std::vector<std::pair<uint64_t, uint32_t>> keys(pending.size());
    for (size_t i = 0; i < pending.size(); ++i)
      keys[i] = {(uint64_t{level_of(pending[i])} << order_bits)
                     | pending[i].order,
                 static_cast<uint32_t>(i)};
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
