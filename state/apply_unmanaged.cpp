// apply_one for unmanaged trials (messages/events_unmanaged.hpp). Their
// states are what their clients set; the experiment's state follows from
// its trials' as upstream derives it: the most advanced of RUNNING (ACTIVE
// here), COMPLETED, ERROR and PAUSED, in that order, PAUSED while none has
// started. Nothing changes on a refusal.

#include "state/apply_detail.hpp"
#include "state/queries.hpp"

#include <algorithm>

namespace det::state::detail {

namespace {

verdict unmanaged_experiment(cluster_state& s, int64_t id,
                             experiment_info*& out) {
  auto e = s.experiments.find(id);
  if (e == s.experiments.end())
    return "unknown experiment " + std::to_string(id);
  if (!e->second.unmanaged)
    return "experiment " + std::to_string(id) + " is not unmanaged";
  out = &e->second;
  return {};
}

int rank(trial_status x) {
  switch (x) {
  case trial_status::pending:
    return 10;
  case trial_status::errored:
    return 20;
  case trial_status::completed:
    return 30;
  case trial_status::running:
    return 40;
  default:
    return 0;
  }
}

/// The experiment's state from its trials' (upstream's
/// UpdateUnmanagedExperimentStatesTx); at `at_us` when it changes.
void derive_state(cluster_state& s, experiment_info& e, int64_t at_us) {
  auto best = trial_status::pending;
  int64_t ended = 0;
  for (auto id : e.trial_ids) {
    const auto& t = s.trials.at(id);
    if (rank(t.status) > rank(best))
      best = t.status;
    ended = std::max(ended, t.ended_at_us);
  }
  experiment_status to = experiment_status::paused;
  if (best == trial_status::running)
    to = experiment_status::active;
  else if (best == trial_status::completed)
    to = experiment_status::completed;
  else if (best == trial_status::errored)
    to = experiment_status::error;
  if (to == e.status)
    return;
  e.status = to;
  e.status_reason = "unmanaged: from its trials' states";
  e.state_changed_at_us = is_terminal(to) && ended > 0 ? ended : at_us;
  if (to == experiment_status::completed)
    e.progress = 1.0;
}

} // namespace

verdict apply_one(cluster_state& s, const unmanaged_trial_created& ev) {
  experiment_info* e = nullptr;
  if (auto why = unmanaged_experiment(s, ev.experiment_id, e); !why.empty())
    return why;
  if (auto i = s.trials.find(ev.trial_id); i != s.trials.end()) {
    // Put again by its external id: it takes the new hyperparameters.
    auto& t = i->second;
    if (t.experiment_id != ev.experiment_id || t.deleted
        || t.external_id.empty() || t.external_id != ev.external_id)
      return "trial " + std::to_string(ev.trial_id)
             + " exists and is not experiment "
             + std::to_string(ev.experiment_id) + "'s trial "
             + quote(ev.external_id);
    t.hparams = ev.hparams;
    return {};
  }
  if (ev.trial_id <= s.last_trial_id)
    return "trial id " + std::to_string(ev.trial_id) + " was given before";
  if (find_unmanaged_trial(s, *e, ev.external_id) != nullptr)
    return "experiment " + std::to_string(ev.experiment_id)
           + " already has a trial " + quote(ev.external_id);
  trial_info t;
  t.id = ev.trial_id;
  t.experiment_id = ev.experiment_id;
  t.hparams = ev.hparams;
  t.external_id = ev.external_id;
  t.created_at_us = ev.at_us;
  t.last_activity_us = ev.at_us;
  s.last_trial_id = t.id;
  s.trials.emplace(t.id, std::move(t));
  e->trial_ids.push_back(ev.trial_id);
  return {};
}

verdict apply_one(cluster_state& s, const unmanaged_trial_state_set& ev) {
  experiment_info* e = nullptr;
  if (auto why = unmanaged_experiment(s, ev.experiment_id, e); !why.empty())
    return why;
  auto i = s.trials.find(ev.trial_id);
  if (i == s.trials.end() || i->second.experiment_id != ev.experiment_id
      || i->second.deleted)
    return "trial " + std::to_string(ev.trial_id) + " is not one of experiment "
           + std::to_string(ev.experiment_id);
  auto& t = i->second;
  trial_status to = trial_status::pending;
  if (ev.state == "RUNNING")
    to = trial_status::running;
  else if (ev.state == "COMPLETED")
    to = trial_status::completed;
  else if (ev.state == "CANCELED")
    to = trial_status::canceled;
  else if (ev.state == "ERROR")
    to = trial_status::errored;
  if (ev.started && to != trial_status::running)
    return "a started run is RUNNING, not " + ev.state;
  t.status = to;
  if (ev.started)
    ++t.runs;
  t.ended_at_us = is_terminal(to) ? ev.at_us : 0;
  if (is_terminal(to))
    t.end_reason = ev.reason;
  t.last_activity_us = ev.at_us;
  derive_state(s, *e, ev.at_us);
  return {};
}

} // namespace det::state::detail
