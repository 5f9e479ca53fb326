// apply_one for runs (messages/events_runs.hpp): runs_archived sets the
// trials' archived flag, runs_deleted their deleted flag (the trials stay
// in the state, hidden from the API by find_listed_trial), and
// trial_log_policy_matched the trial's label, the policy that cancels its
// retries or the agents its later allocations avoid. Every run named must
// be one of the experiment's, ended, and not deleted; nothing changes on a
// refusal.

#include "state/apply_detail.hpp"

#include <algorithm>
#include <set>

namespace det::state::detail {

namespace {

/// Checks that `ids` are distinct, ended, undeleted trials of experiment
/// `exp`; their trial_info pointers in `out`.
verdict ended_runs(cluster_state& s, int64_t exp,
                   const std::vector<int64_t>& ids,
                   std::vector<trial_info*>& out) {
  if (s.experiments.count(exp) == 0)
    return "unknown experiment " + std::to_string(exp);
  std::set<int64_t> seen;
  for (auto id : ids) {
    auto t = s.trials.find(id);
    if (t == s.trials.end() || t->second.experiment_id != exp)
      return "trial " + std::to_string(id) + " is not one of experiment "
             + std::to_string(exp);
    if (!seen.insert(id).second)
      return "trial " + std::to_string(id) + " is named twice";
    if (t->second.deleted)
      return "trial " + std::to_string(id) + " was deleted";
    if (!is_terminal(t->second.status))
      return "trial " + std::to_string(id) + " is "
             + to_string(t->second.status) + ", not ended";
    out.push_back(&t->second);
  }
  return {};
}

} // namespace

verdict apply_one(cluster_state& s, const runs_archived& ev) {
  std::vector<trial_info*> ts;
  if (auto why = ended_runs(s, ev.experiment_id, ev.trial_ids, ts);
      !why.empty())
    return why;
  if (s.experiments.at(ev.experiment_id).archived)
    return "experiment " + std::to_string(ev.experiment_id) + " is archived";
  for (auto* t : ts)
    t->archived = ev.archived;
  return {};
}

verdict apply_one(cluster_state& s, const runs_deleted& ev) {
  std::vector<trial_info*> ts;
  if (auto why = ended_runs(s, ev.experiment_id, ev.trial_ids, ts);
      !why.empty())
    return why;
  if (!is_terminal(s.experiments.at(ev.experiment_id).status))
    return "experiment " + std::to_string(ev.experiment_id) + " has not ended";
  for (auto* t : ts)
    t->deleted = true;
  return {};
}

verdict apply_one(cluster_state& s, const trial_log_policy_matched& ev) {
  auto i = s.trials.find(ev.trial_id);
  if (i == s.trials.end() || i->second.deleted)
    return "unknown trial " + std::to_string(ev.trial_id);
  auto& t = i->second;
  if (t.experiment_id != ev.experiment_id)
    return "trial " + std::to_string(ev.trial_id) + " is not one of experiment "
           + std::to_string(ev.experiment_id);
  auto key = ev.name.empty() ? ev.pattern : ev.name;
  if (std::find(t.log_policies_fired.begin(), t.log_policies_fired.end(), key)
      != t.log_policies_fired.end())
    return "trial " + std::to_string(ev.trial_id) + " already matched policy '"
           + key + "'";
  t.log_policies_fired.push_back(key);
  if (!ev.name.empty())
    t.log_policy_matched = ev.name;
  if (ev.action == "cancel_retries")
    t.retries_canceled_by = key;
  if (ev.action == "exclude_node"
      && std::find(t.excluded_agents.begin(), t.excluded_agents.end(), ev.node)
             == t.excluded_agents.end())
    t.excluded_agents.push_back(ev.node);
  return {};
}

} // namespace det::state::detail
