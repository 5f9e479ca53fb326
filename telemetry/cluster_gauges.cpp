#include "telemetry/cluster_gauges.hpp"

#include "state/queries.hpp"

#include <map>

namespace det::telemetry {

std::vector<aws::metric_datum> cluster_gauges(const state::cluster_state& s,
                                              const std::string& cluster_id,
                                              int64_t now_ms) {
  std::vector<aws::metric_datum> out;
  for (const auto& [pool, p] : s.pools) {
    std::vector<std::pair<std::string, std::string>> dims{
        {"Cluster", cluster_id}, {"Pool", pool}};
    auto gauge = [&](const char* name, double v) {
      out.push_back({name, dims, v, "Count", now_ms});
    };
    int64_t used = 0;
    for (const auto* a : state::agents_of_pool(s, pool))
      used += state::used_slots(*a);
    gauge("SlotsUsed", static_cast<double>(used));
    gauge("SlotsFree", static_cast<double>(state::free_slots_of_pool(s, pool)));
    gauge("PendingTrials",
          static_cast<double>(state::pending_trials(s, pool).size()));
    std::map<state::instance_status, int64_t> by_state;
    for (const auto* i : state::instances_of_pool(s, pool))
      ++by_state[i->status];
    for (auto st :
         {state::instance_status::pending, state::instance_status::running,
          state::instance_status::terminating}) {
      auto d = dims;
      d.emplace_back("State", state::to_string(st));
      out.push_back(
          {"Instances", d, static_cast<double>(by_state[st]), "Count", now_ms});
    }
  }
  return out;
}

} // namespace det::telemetry
