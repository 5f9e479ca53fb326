#include "sim/engine_state.hpp"

#include <chrono>

namespace det::sim::detail {

namespace {

std::string experiment_of(const sim_state& s, size_t j) {
  const auto& g = (*s.jobs)[j].group;
  return g.empty() ? s.state[j].id : g;
}

} // namespace

policy::pool_snapshot pool_snapshot_of(const sim_state& s,
                                       const std::set<size_t>& running,
                                       size_t& free_total) {
  const auto& c = *s.config;
  policy::pool_snapshot snap;
  free_total = 0;
  for (auto i : s.live)
    if (const auto& x = s.instances[i]; x.connected) {
      free_total += x.free.size();
      snap.agents.push_back(
          {x.id, c.gpus_per_instance, x.free, true, x.draining});
    }
  for (auto j : s.waiting) {
    policy::pending_allocation p;
    p.id = s.state[j].id;
    p.experiment_id = experiment_of(s, j);
    p.slots = (*s.jobs)[j].gpus;
    p.order = j;
    snap.pending.push_back(std::move(p));
  }
  for (auto j : running) {
    policy::running_allocation r;
    r.id = s.state[j].id;
    r.experiment_id = experiment_of(s, j);
    r.order = j;
    r.resources = s.state[j].resources;
    snap.running.push_back(std::move(r));
  }
  snap.capacity.max_slots = c.max_instances * c.gpus_per_instance;
  snap.capacity.slots_per_instance = c.gpus_per_instance;
  return snap;
}

policy::consolidation_config consolidation_config_of(const sim_state& s) {
  policy::consolidation_config cc;
  cc.consolidate_after = std::chrono::seconds{s.policy->consolidate_after_s};
  cc.move_cost = std::chrono::seconds{s.config->move_cost_s};
  cc.slots_per_instance = s.config->gpus_per_instance;
  cc.min_instances = s.config->min_instances;
  return cc;
}

policy::consolidation_plan consolidation_of(const sim_state& s,
                                            const std::set<size_t>& running) {
  auto at = [](int64_t ms) {
    return policy::timestamp{} + std::chrono::milliseconds{ms};
  };
  policy::consolidation_input in;
  in.now = at(s.now_ms);
  // Jobs marked never are out of s.waiting already.
  if (!s.waiting.empty())
    return {};
  size_t free_total = 0;
  auto snap = pool_snapshot_of(s, running, free_total);
  for (auto& a : snap.agents) {
    policy::consolidation_agent ca;
    const auto& x = s.instances[std::stoul(a.id.substr(2))];
    if (x.underused_since_ms >= 0)
      ca.underused_since = at(x.underused_since_ms);
    ca.agent = std::move(a);
    in.agents.push_back(std::move(ca));
  }
  for (auto& r : snap.running) {
    policy::consolidation_run cr;
    cr.started = at(s.state[std::stoul(r.id.substr(1))].started_ms);
    cr.run = std::move(r);
    in.running.push_back(std::move(cr));
  }
  return policy::plan_consolidation(in, consolidation_config_of(s));
}

} // namespace det::sim::detail
