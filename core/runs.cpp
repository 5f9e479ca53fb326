#include "core/runs.hpp"

#include "core/record_args.hpp"
#include "policy/log_policies.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"

#include <algorithm>
#include <map>

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;
using state::cluster_state;

/// The runs `ids`, ended runs of experiment `exp`.
std::vector<const state::trial_info*>
ended_runs(const cluster_state& s, const std::vector<int64_t>& ids,
           int64_t exp) {
  std::vector<const state::trial_info*> out;
  for (auto id : ids) {
    auto t = state::find_listed_trial(s, id);
    if (t == nullptr || t->experiment_id != exp)
      refuse(errc::not_found, "Run with id '" + std::to_string(id)
                                  + "' not found in experiment "
                                  + std::to_string(exp));
    if (!state::is_terminal(t->status))
      refuse(errc::failed_precondition,
             "Run " + std::to_string(id) + " is not in a terminal state.");
    out.push_back(t);
  }
  return out;
}

const state::experiment_info& experiment_of(const cluster_state& s,
                                            int64_t id) {
  auto e = state::find_experiment(s, id);
  if (e == nullptr)
    refuse(errc::not_found, "experiment " + std::to_string(id) + " not found");
  return *e;
}

} // namespace

run_facts run_facts_of(const cluster_state& s, int64_t id, int64_t project_id) {
  run_facts f;
  auto t = state::find_listed_trial(s, id);
  auto e = t ? state::find_experiment(s, t->experiment_id) : nullptr;
  if (e == nullptr || (project_id != 0 && e->project_id != project_id))
    return f;
  f.found = true;
  f.experiment_id = e->id;
  auto p = state::find_project(s, e->project_id);
  auto w = p ? state::find_workspace(s, p->workspace_id) : std::nullopt;
  f.archived = e->archived || (p && p->archived) || (w && w->archived);
  f.run_archived = t->archived;
  f.experiment_ended = state::is_terminal(e->status);
  f.terminal = state::is_terminal(t->status);
  f.single = e->config.value("searcher", json::object()).value("name", "single")
             == std::string{"single"};
  f.multitrial = e->trial_ids.size() > 1;
  return f;
}

record_outcome archive_runs(const cluster_state& s, int64_t experiment_id,
                            const std::vector<int64_t>& ids, bool archived,
                            const std::string& username, int64_t now_us) {
  return decided([&](record_outcome& o) {
    const auto& e = experiment_of(s, experiment_id);
    if (e.archived)
      refuse(errc::failed_precondition, "Run is part of archived Search (id: '"
                                            + std::to_string(e.id) + "').");
    runs_archived ev{e.id, {}, archived, username, now_us};
    for (auto t : ended_runs(s, ids, e.id))
      if (t->archived != archived)
        ev.trial_ids.push_back(t->id);
    if (!ev.trial_ids.empty())
      o.events.push_back(std::move(ev));
  });
}

record_outcome delete_runs(const cluster_state& s, int64_t experiment_id,
                           const std::vector<int64_t>& ids,
                           const std::string& username, int64_t now_us) {
  return decided([&](record_outcome& o) {
    const auto& e = experiment_of(s, experiment_id);
    if (!state::is_terminal(e.status))
      refuse(errc::failed_precondition,
             "Run is part of an active search (id: '" + std::to_string(e.id)
                 + "'); its runs can be deleted once it has ended.");
    runs_deleted ev{e.id, {}, username, now_us};
    for (auto t : ended_runs(s, ids, e.id))
      ev.trial_ids.push_back(t->id);
    o.events.push_back(std::move(ev));
  });
}

trial_metrics_reported metrics_event(const user_metrics_report& c,
                                     int64_t now_us) {
  trial_metrics_reported ev;
  ev.trial_id = c.trial_id;
  ev.kind = c.group;
  ev.steps_completed = c.steps;
  ev.metrics = c.metrics;
  ev.at_us = now_us;
  return ev;
}

record_outcome decide_record(const cluster_state& s,
                             const user_metrics_report& c, int64_t now_us) {
  return decided([&](record_outcome& o) {
    auto id = c.trial_id;
    auto t = state::find_listed_trial(s, id);
    if (t == nullptr)
      refuse(errc::not_found, "trial " + std::to_string(id) + " not found");
    auto e = state::find_experiment(s, t->experiment_id);
    auto u = s.users.find(c.username);
    if (e == nullptr
        || (e->owner != c.username && (u == s.users.end() || !u->second.admin)))
      refuse(errc::permission_denied,
             "forbidden: only the owner of experiment "
                 + std::to_string(t->experiment_id)
                 + " or an admin may report its metrics");
    if (t->allocation)
      refuse(errc::failed_precondition,
             "trial " + std::to_string(id)
                 + " is running: its allocation reports its metrics");
    if (state::is_terminal(t->status))
      refuse(errc::failed_precondition,
             "trial " + std::to_string(id) + " has ended");
    o.events.push_back(metrics_event(c, now_us));
  });
}

std::optional<trial_log_policy_matched>
log_policy_event(const cluster_state& s, const log_policy_match& c,
                 int64_t now_us) {
  auto t = state::find_listed_trial(s, c.trial_id);
  if (t == nullptr)
    return std::nullopt; // deleted meanwhile
  auto e = state::find_experiment(s, t->experiment_id);
  const auto& key = c.policy;
  if (e == nullptr || key.empty() || key.size() > 4096
      || std::find(t->log_policies_fired.begin(), t->log_policies_fired.end(),
                   key)
             != t->log_policies_fired.end())
    return std::nullopt;
  for (const auto& p : policy::effective_log_policies(e->config)) {
    if ((p.name.empty() ? p.pattern : p.name) != key || p.pattern.empty())
      continue;
    // A trial prints what it likes: its line and the agent's name are
    // fitted, never refused.
    auto node = util::fit_text(c.node, {255, false, true});
    auto action = p.action == "exclude_node" && node.empty() ? "" : p.action;
    return trial_log_policy_matched{
        t->id,
        e->id,
        p.name,
        util::fit_text(p.pattern, {4096, true, true}),
        action,
        node,
        util::fit_text(c.line, {4096, true, true}),
        now_us};
  }
  return std::nullopt;
}

} // namespace det
