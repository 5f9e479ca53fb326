// master_core: consolidation passes of provisioned pools. The plan is
// policy::plan_consolidation (pure); the core feeds it from its state and
// turns it into the same appends as a spot interruption: the emptied
// agent drained, its trials asked to checkpoint. Off unless the pool is in
// core_config::consolidation.

#include "core/master_core.hpp"

#include "state/queries.hpp"

#include <chrono>
#include <iterator>

namespace det {

namespace {

policy::timestamp time_of_us(int64_t us) {
  return policy::timestamp{}
         + std::chrono::duration_cast<policy::duration>(
             std::chrono::microseconds{us});
}

} // namespace

decision master_core::consolidate_pool(const std::string& pool,
                                       int64_t now_us) {
  decision d;
  d.reply = consolidate_into(d, pool, now_us);
  return d;
}

nlohmann::json master_core::consolidate_into(decision& d,
                                             const std::string& pool,
                                             int64_t now_us) {
  nlohmann::json none = {{"agents", nlohmann::json::array()}, {"trials", 0}};
  auto setting = cfg_.consolidation.find(pool);
  auto p = state::find_pool(st_, pool);
  if (setting == cfg_.consolidation.end() || p == nullptr
      || p->config.provider.empty() || p->config.slots_per_instance <= 0)
    return none;
  auto config = setting->second;
  config.slots_per_instance = p->config.slots_per_instance;
  config.min_instances = p->config.min_instances;

  auto snap = pool_view_snapshot(pool);
  policy::consolidation_input in;
  in.now = time_of_us(now_us);
  in.pending = std::move(snap.pending);
  std::map<std::string, int64_t> seen;
  for (auto& a : snap.agents) {
    policy::consolidation_agent ca;
    int free = static_cast<int>(a.free_slots.size());
    if (policy::is_underused(a.total_slots, free, config)) {
      auto it = underused_since_us_.find(a.id);
      int64_t since = it == underused_since_us_.end() ? now_us : it->second;
      seen.emplace(a.id, since);
      ca.underused_since = time_of_us(since);
    }
    ca.agent = std::move(a);
    in.agents.push_back(std::move(ca));
  }
  // Agents not under-used now (or gone, or no longer schedulable) start
  // their period again when they next are.
  for (auto it = underused_since_us_.begin();
       it != underused_since_us_.end();) {
    auto a = state::find_agent(st_, it->first);
    bool stale =
        a == nullptr || (a->pool == pool && seen.count(it->first) == 0);
    it = stale ? underused_since_us_.erase(it) : std::next(it);
  }
  for (const auto& [id, since] : seen)
    underused_since_us_[id] = since;
  for (auto& r : snap.running) {
    policy::consolidation_run cr;
    cr.started = in.now;
    if (r.id.rfind("task:", 0) != 0)
      if (auto t = state::find_trial(st_, std::stoll(r.id));
          t != nullptr && t->allocation)
        cr.started = time_of_us(t->allocation->running_at_us > 0
                                    ? t->allocation->running_at_us
                                    : t->allocation->placed_at_us);
    cr.run = std::move(r);
    in.running.push_back(std::move(cr));
  }

  auto plan = policy::plan_consolidation(in, config);
  int64_t asked = 0;
  auto agents = nlohmann::json::array();
  for (const auto& id : plan.emptied_agents) {
    auto a = state::find_agent(st_, id);
    if (a == nullptr
        || (a->enabled && !emit(d, agent_disabled{id, true, true})))
      continue;
    agents.push_back(id);
    underused_since_us_.erase(id);
    for (const auto& m : plan.moves)
      if (m.from_agent == id) {
        stop_trial(d, std::stoll(m.allocation_id), "consolidation", false,
                   now_us);
        ++asked;
      }
  }
  return {{"agents", agents}, {"trials", asked}};
}

} // namespace det
