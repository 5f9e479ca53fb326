#pragma once

// Builders for scheduler snapshots, so that each test reads as its scenario.

#include "policy/pool_scheduler.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace det::policy::test {

/// An agent with `total` slots of which the first `used` are busy.
inline agent_view agent(std::string id, int total, int used = 0) {
  agent_view a;
  a.id = std::move(id);
  a.total_slots = total;
  for (int i = used; i < total; ++i)
    a.free_slots.push_back(i);
  return a;
}

inline pending_allocation trial(std::string id, int slots, int priority = 42,
                                uint64_t order = 0,
                                std::string experiment = "exp-1",
                                double weight = 1.0) {
  pending_allocation p;
  p.id = std::move(id);
  p.experiment_id = std::move(experiment);
  p.slots = slots;
  p.priority = priority;
  p.order = order;
  p.weight = weight;
  return p;
}

inline running_allocation running(std::string id, std::vector<agent_slots> on,
                                  int priority = 42, uint64_t order = 0,
                                  std::string experiment = "exp-1",
                                  double weight = 1.0) {
  running_allocation r;
  r.id = std::move(id);
  r.experiment_id = std::move(experiment);
  r.priority = priority;
  r.order = order;
  r.weight = weight;
  r.resources = std::move(on);
  return r;
}

inline std::vector<int> range(int from, int to) {
  std::vector<int> v(static_cast<size_t>(to - from));
  std::iota(v.begin(), v.end(), from);
  return v;
}

/// A static pool: its capacity is the sum of its agents.
inline pool_snapshot static_pool(std::vector<agent_view> agents,
                                 std::vector<pending_allocation> pending,
                                 std::vector<running_allocation> run = {}) {
  pool_snapshot s;
  for (const auto& a : agents)
    s.capacity.max_slots += a.total_slots;
  s.agents = std::move(agents);
  s.pending = std::move(pending);
  s.running = std::move(run);
  return s;
}

inline const placement* placed(const schedule_result& r,
                               const std::string& id) {
  auto it =
      std::find_if(r.placements.begin(), r.placements.end(),
                   [&](const placement& p) { return p.allocation_id == id; });
  return it == r.placements.end() ? nullptr : &*it;
}

/// Agent ids of a placement, sorted.
inline std::vector<std::string> agents_of(const schedule_result& r,
                                          const std::string& id) {
  std::vector<std::string> out;
  if (const auto* p = placed(r, id))
    for (const auto& res : p->resources)
      out.push_back(res.agent_id);
  std::sort(out.begin(), out.end());
  return out;
}

inline std::optional<std::string> never_fit_reason(const schedule_result& r,
                                                   const std::string& id) {
  for (const auto& u : r.unschedulable)
    if (u.allocation_id == id)
      return u.reason;
  return std::nullopt;
}

inline bool preempted(const schedule_result& r, const std::string& id) {
  return std::find(r.preemptions.begin(), r.preemptions.end(), id)
         != r.preemptions.end();
}

inline scheduler_config priority_with_preemption() {
  scheduler_config c;
  c.preemption = true;
  return c;
}

inline scheduler_config fair_share() {
  scheduler_config c;
  c.policy = scheduling_policy::fair_share;
  return c;
}

} // namespace det::policy::test
