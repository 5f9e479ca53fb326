#include "core/provisioning_wake.hpp"

#include "state/queries.hpp"

#include <optional>
#include <type_traits>

namespace det {

namespace {

// The pool an event concerns: a name, "" for no pool (it changes nothing
// a scale decision reads), or nullopt for "unknown: every pool".
using pool_of = std::optional<std::string>;

pool_of agent_pool(const state::cluster_state& s, const std::string& id) {
  auto a = state::find_agent(s, id);
  return a ? pool_of{a->pool} : std::nullopt;
}

pool_of instance_pool(const state::cluster_state& s, const std::string& id) {
  auto i = state::find_instance(s, id);
  return i ? pool_of{i->pool} : std::nullopt;
}

pool_of spot_pool(const state::cluster_state& s, const std::string& id) {
  auto i = s.spot_requests.find(id);
  return i != s.spot_requests.end() ? pool_of{i->second.pool} : std::nullopt;
}

pool_of experiment_pool(const state::cluster_state& s, int64_t id) {
  auto e = state::find_experiment(s, id);
  return e ? pool_of{e->pool} : std::nullopt;
}

pool_of trial_pool(const state::cluster_state& s, int64_t id) {
  auto t = state::find_trial(s, id);
  return t ? experiment_pool(s, t->experiment_id) : std::nullopt;
}

pool_of concerned_pool(const state::cluster_state& s, const domain_event& ev) {
  return std::visit(
      [&](const auto& e) -> pool_of {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<
                          T,
                          master_started> || std::is_same_v<T, pool_configured>)
          return std::nullopt;
        else if constexpr (std::is_same_v<T, agent_connected>)
          return e.pool;
        else if constexpr (
            std::is_same_v<
                T,
                agent_disconnected> || std::is_same_v<T, agent_lost> || std::is_same_v<T, agent_enabled> || std::is_same_v<T, agent_disabled> || std::is_same_v<T, agent_slots_changed>)
          return agent_pool(s, e.agent_id);
        else if constexpr (
            std::is_same_v<
                T,
                instance_launch_requested> || std::is_same_v<T, instance_launch_failed> || std::is_same_v<T, instance_pending> || std::is_same_v<T, spot_request_opened>)
          return e.pool;
        else if constexpr (
            std::is_same_v<
                T,
                instance_running> || std::is_same_v<T, instance_terminate_requested> || std::is_same_v<T, instance_terminated>)
          return instance_pool(s, e.instance_id);
        else if constexpr (
            std::is_same_v<
                T,
                spot_request_fulfilled> || std::is_same_v<T, spot_request_cancelled>)
          return spot_pool(s, e.request_id);
        else if constexpr (
            std::is_same_v<
                T,
                experiment_model_stored> || std::is_same_v<T, experiment_state_changed>)
          return experiment_pool(s, e.experiment_id);
        else if constexpr (
            std::is_same_v<
                T,
                trial_created> || std::is_same_v<T, trial_placed> || std::is_same_v<T, trial_exited> || std::is_same_v<T, trial_restarted> || std::is_same_v<T, trial_errored> || std::is_same_v<T, trial_canceled>)
          return trial_pool(s, e.trial_id);
        else // experiment_submitted (its trial_created events bring its
             // demand), metrics, checkpoints, running, searcher, users
          return std::string{};
      },
      ev);
}

} // namespace

std::set<std::string> pools_to_wake(const state::cluster_state& s,
                                    const std::vector<domain_event>& events) {
  std::set<std::string> out;
  for (const auto& ev : events) {
    auto p = concerned_pool(s, ev);
    if (!p) {
      for (const auto& [name, info] : s.pools)
        out.insert(name);
      return out;
    }
    if (!p->empty())
      out.insert(*p);
  }
  return out;
}

} // namespace det
