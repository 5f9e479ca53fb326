#include "core/runs.hpp"

#include "core/record_args.hpp"
#include "messages/metric_group.hpp"
#include "policy/log_policies.hpp"
#include "state/queries.hpp"

#include <algorithm>
#include <map>

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;
using state::cluster_state;

using run_handler = void (*)(const cluster_state&, const record_command&,
                             int64_t, record_outcome&);

/// The ids of `runIds`, each once.
std::vector<int64_t> run_ids(const json& a) {
  auto ids = a.find("runIds");
  if (ids == a.end() || !ids->is_array() || ids->empty())
    refuse(errc::invalid_argument, "runIds: expected a non-empty list of ids");
  std::vector<int64_t> out;
  for (const auto& v : *ids) {
    if (!v.is_number_integer() || v.get<int64_t>() < 1)
      refuse(errc::invalid_argument, "runIds: expected positive ids");
    if (std::find(out.begin(), out.end(), v.get<int64_t>()) == out.end())
      out.push_back(v.get<int64_t>());
  }
  return out;
}

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
                                            const json& a) {
  auto id = id_arg(a, "experimentId");
  auto e = state::find_experiment(s, id);
  if (e == nullptr)
    refuse(errc::not_found, "experiment " + std::to_string(id) + " not found");
  return *e;
}

void archive(const cluster_state& s, const record_command& c, int64_t now,
             record_outcome& o) {
  const auto& e = experiment_of(s, c.args);
  auto archived = flag(c.args, "archived");
  auto ids = run_ids(c.args);
  if (e.archived)
    refuse(errc::failed_precondition, "Run is part of archived Search (id: '"
                                          + std::to_string(e.id) + "').");
  runs_archived ev{e.id, {}, archived, c.username, now};
  for (auto t : ended_runs(s, ids, e.id))
    if (t->archived != archived)
      ev.trial_ids.push_back(t->id);
  if (!ev.trial_ids.empty())
    o.events.push_back(std::move(ev));
}

void remove(const cluster_state& s, const record_command& c, int64_t now,
            record_outcome& o) {
  const auto& e = experiment_of(s, c.args);
  auto ids = run_ids(c.args);
  if (!state::is_terminal(e.status))
    refuse(errc::failed_precondition,
           "Run is part of an active search (id: '" + std::to_string(e.id)
               + "'); its runs can be deleted once it has ended.");
  runs_deleted ev{e.id, {}, c.username, now};
  for (auto t : ended_runs(s, ids, e.id))
    ev.trial_ids.push_back(t->id);
  o.events.push_back(std::move(ev));
}

/// {trialId, group, steps, metrics}: a user session reports metrics for a
/// trial that is not running (upstream's ReportTrialMetrics from a user):
/// only its experiment's owner or an admin, never while an allocation of
/// it runs (that one reports its own), never once it has ended.
void user_metrics(const cluster_state& s, const record_command& c, int64_t now,
                  record_outcome& o) {
  auto id = id_arg(c.args, "trialId");
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
  trial_metrics_reported ev;
  ev.trial_id = t->id;
  ev.kind = text(c.args, "group", "", name_rules);
  if (auto why = metric_group_problem(ev.kind); !why.empty())
    refuse(errc::invalid_argument, "group " + why);
  ev.steps_completed = c.args.value("steps", int64_t{0});
  if (ev.steps_completed < 0)
    refuse(errc::invalid_argument,
           "metrics.stepsCompleted: expected 0 or more");
  ev.metrics = object(c.args, "metrics", json::object());
  ev.at_us = now;
  o.events.push_back(std::move(ev));
}

} // namespace

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

record_outcome decide_runs(const cluster_state& s, const record_command& c,
                           int64_t now_us) {
  static const std::map<std::string, run_handler> table{
      {"runs.archive", archive},
      {"runs.delete", remove},
      {"trial.user_metrics", user_metrics}};
  return record_args::run_command(table, s, c, now_us);
}

} // namespace det
