#include "sim/engine_state.hpp"

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
      snap.agents.push_back({x.id, c.gpus_per_instance, x.free, true, false});
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

} // namespace det::sim::detail
