#include "inspect/metrics_view.hpp"

#include "state/queries.hpp"

#include <map>

namespace det::inspection {

using metrics::family;
using metrics::metric_type;

namespace {

family gauge(std::string name, std::string help) {
  return family{std::move(name), std::move(help), metric_type::gauge, {}};
}

template <class Enum, size_t N>
void by_state(family& f, const std::map<std::string, int64_t>& counts,
              const Enum (&all)[N], metrics::labels base = {}) {
  for (auto e : all) {
    std::string name = state::to_string(e);
    auto i = counts.find(name);
    auto ls = base;
    ls.emplace_back("state", name);
    f.samples.push_back(
        {"", ls, i == counts.end() ? 0.0 : static_cast<double>(i->second)});
  }
}

constexpr state::instance_status instance_states[] = {
    state::instance_status::pending, state::instance_status::running,
    state::instance_status::terminating};

constexpr state::agent_status agent_states[] = {
    state::agent_status::connected, state::agent_status::disconnected};

constexpr state::trial_status trial_states[] = {
    state::trial_status::pending, state::trial_status::assigned,
    state::trial_status::running, state::trial_status::checkpointing,
    state::trial_status::exited,  state::trial_status::completed,
    state::trial_status::errored, state::trial_status::canceled};

constexpr state::experiment_status experiment_states[] = {
    state::experiment_status::active,
    state::experiment_status::paused,
    state::experiment_status::stopping_completed,
    state::experiment_status::stopping_canceled,
    state::experiment_status::stopping_killed,
    state::experiment_status::stopping_error,
    state::experiment_status::completed,
    state::experiment_status::canceled,
    state::experiment_status::error};

} // namespace

std::vector<family> state_families(const state::cluster_state& s) {
  auto pools = gauge("det_resource_pools", "Resource pools configured.");
  pools.samples.push_back({"", {}, static_cast<double>(s.pools.size())});
  auto agents =
      gauge("det_agents", "Agents known to the master, by pool and status.");
  auto slots_used = gauge("det_slots_used", "Slots in use by trials, by pool.");
  auto slots_free =
      gauge("det_slots_free", "Free slots on schedulable agents, by pool.");
  auto instances = gauge("det_instances",
                         "Instances not yet terminated, by pool and state.");
  for (const auto& [name, p] : s.pools) {
    std::map<std::string, int64_t> agent_counts, instance_counts;
    int64_t used = 0;
    for (const auto* a : state::agents_of_pool(s, name)) {
      ++agent_counts[state::to_string(a->status)];
      used += state::used_slots(*a);
    }
    for (const auto* i : state::instances_of_pool(s, name))
      ++instance_counts[state::to_string(i->status)];
    metrics::labels pl{{"pool", name}};
    for (auto st : agent_states) {
      auto ls = pl;
      ls.emplace_back("status", state::to_string(st));
      agents.samples.push_back(
          {"", ls, static_cast<double>(agent_counts[state::to_string(st)])});
    }
    slots_used.samples.push_back({"", pl, static_cast<double>(used)});
    slots_free.samples.push_back(
        {"", pl, static_cast<double>(state::free_slots_of_pool(s, name))});
    by_state(instances, instance_counts, instance_states, pl);
  }
  std::map<std::string, int64_t> trial_counts, experiment_counts;
  for (const auto& [id, t] : s.trials)
    ++trial_counts[state::to_string(t.status)];
  for (const auto& [id, e] : s.experiments)
    ++experiment_counts[state::to_string(e.status)];
  auto trials = gauge("det_trials", "Trials by state.");
  by_state(trials, trial_counts, trial_states);
  auto experiments = gauge("det_experiments", "Experiments by state.");
  by_state(experiments, experiment_counts, experiment_states);
  auto position = gauge("det_event_log_position",
                        "Position of the last event applied to the state.");
  position.samples.push_back({"", {}, static_cast<double>(s.position)});
  return {pools,     agents, slots_used,  slots_free,
          instances, trials, experiments, position};
}

} // namespace det::inspection
