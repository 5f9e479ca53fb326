// apply() for experiments. An experiment starts ACTIVE, toggles between
// ACTIVE and PAUSED, may enter a STOPPING_* state (and escalate between
// them), and ends COMPLETED, CANCELED or ERROR only once every trial of it
// has ended. A terminal experiment changes no more, unless a user continues
// it (experiment_continued): ACTIVE again, with the trials it names
// pending again.

#include "state/apply_detail.hpp"
#include "state/queries.hpp"

#include <algorithm>
#include <cstdint>

namespace det::state::detail {

namespace {

std::string experiment_name(int64_t id) {
  return "experiment " + std::to_string(id);
}

/// Why `from` cannot move to `to`, or empty.
verdict check_transition(const experiment_info& e, experiment_status to,
                         const cluster_state& s) {
  auto from = e.status;
  auto refuse = [&] {
    return experiment_name(e.id) + " cannot go from " + to_string(from) + " to "
           + to_string(to);
  };
  if (is_terminal(from) || from == to)
    return refuse();
  if (to == experiment_status::active)
    return from == experiment_status::paused ? verdict{} : refuse();
  if (to == experiment_status::paused)
    return from == experiment_status::active ? verdict{} : refuse();
  if (is_stopping(to))
    return {};
  // A terminal state: every trial must have ended.
  for (auto id : e.trial_ids) {
    auto t = s.trials.find(id);
    if (t != s.trials.end() && !is_terminal(t->second.status))
      return experiment_name(e.id) + " cannot end while trial "
             + std::to_string(id) + " is " + to_string(t->second.status);
  }
  return {};
}

} // namespace

verdict apply_one(cluster_state& s, const experiment_submitted& ev) {
  if (ev.experiment_id <= 0)
    return "experiment_id must be positive";
  if (s.experiments.count(ev.experiment_id) != 0)
    return experiment_name(ev.experiment_id) + " already exists";
  if (s.pools.count(ev.pool) == 0)
    return "unknown pool " + quote(ev.pool);
  if (ev.project_id > 1 && s.projects.count(ev.project_id) == 0)
    return "unknown project " + std::to_string(ev.project_id);
  if (!ev.external_id.empty() && !ev.unmanaged)
    return "only an unmanaged experiment has an external id";
  if (!ev.external_id.empty()
      && find_unmanaged_experiment(s, ev.external_id) != nullptr)
    return "external experiment id " + quote(ev.external_id) + " is taken";
  experiment_info e;
  e.project_id = ev.project_id > 0 ? ev.project_id : 1;
  e.id = ev.experiment_id;
  e.pool = ev.pool;
  e.owner = ev.owner;
  e.config = ev.config;
  e.priority = ev.priority;
  e.weight = ev.weight;
  e.max_restarts = ev.max_restarts;
  e.slots_per_trial = ev.slots_per_trial;
  e.submitted_at_us = ev.at_us;
  e.state_changed_at_us = ev.at_us;
  e.model_definition_pending = ev.model_definition_pending;
  e.unmanaged = ev.unmanaged;
  e.external_id = ev.external_id;
  if (e.unmanaged) {
    e.status = experiment_status::paused;
    e.status_reason = "unmanaged: its trials set their own states";
    e.model_definition_pending = false;
  }
  if (auto r = ev.config.find("resources");
      r != ev.config.end() && r->is_object())
    if (auto m = r->find("max_slots"); m != r->end() && m->is_number_integer()
                                       && m->get<int64_t>() > 0
                                       && m->get<int64_t>() <= INT32_MAX)
      e.max_slots = m->get<int32_t>();
  s.last_experiment_id = std::max(s.last_experiment_id, e.id);
  s.experiments.emplace(e.id, std::move(e));
  return {};
}

verdict apply_one(cluster_state& s, const experiment_model_stored& ev) {
  auto i = s.experiments.find(ev.experiment_id);
  if (i == s.experiments.end())
    return "unknown " + experiment_name(ev.experiment_id);
  if (!i->second.model_definition_pending)
    return experiment_name(ev.experiment_id)
           + " has no model definition pending";
  i->second.model_definition_pending = false;
  return {};
}

verdict apply_one(cluster_state& s, const experiment_state_changed& ev) {
  auto i = s.experiments.find(ev.experiment_id);
  if (i == s.experiments.end())
    return "unknown " + experiment_name(ev.experiment_id);
  experiment_status to;
  if (!from_string(ev.state, to))
    return "unknown experiment state " + quote(ev.state);
  if (i->second.unmanaged)
    return experiment_name(ev.experiment_id)
           + " is unmanaged: its state follows its trials'";
  if (auto why = check_transition(i->second, to, s); !why.empty())
    return why;
  i->second.status = to;
  i->second.status_reason = ev.reason;
  i->second.state_changed_at_us = ev.at_us;
  if (is_terminal(to))
    i->second.searcher_inbox.clear(); // nobody will consume them
  return {};
}

verdict apply_one(cluster_state& s, const experiment_edited& ev) {
  auto i = s.experiments.find(ev.experiment_id);
  if (i == s.experiments.end())
    return "unknown " + experiment_name(ev.experiment_id);
  auto& e = i->second;
  e.config["name"] = ev.name;
  e.config["description"] = ev.description;
  e.config["labels"] = ev.labels;
  e.notes = ev.notes;
  return {};
}

verdict apply_one(cluster_state& s, const experiment_deletion_started& ev) {
  auto i = s.experiments.find(ev.experiment_id);
  if (i == s.experiments.end())
    return "unknown " + experiment_name(ev.experiment_id);
  auto& e = i->second;
  if (!is_terminal(e.status))
    return experiment_name(ev.experiment_id) + " has not ended";
  if (e.deleting)
    return experiment_name(ev.experiment_id) + " is already being deleted";
  for (auto id : e.trial_ids) {
    auto t = s.trials.find(id);
    if (t != s.trials.end() && t->second.allocation)
      return "trial " + std::to_string(id) + " still holds slots";
  }
  e.deleting = true;
  return {};
}

verdict apply_one(cluster_state& s, const experiment_deleted& ev) {
  auto i = s.experiments.find(ev.experiment_id);
  if (i == s.experiments.end())
    return "unknown " + experiment_name(ev.experiment_id);
  if (!is_terminal(i->second.status))
    return experiment_name(ev.experiment_id) + " has not ended";
  for (auto id : i->second.trial_ids) {
    auto t = s.trials.find(id);
    if (t != s.trials.end() && t->second.allocation)
      return "trial " + std::to_string(id) + " still holds slots";
  }
  if (s.orphan_checkpoints.count(ev.experiment_id) != 0)
    return "deleted " + experiment_name(ev.experiment_id)
           + " still has checkpoints being deleted";
  // Checkpoints being deleted outlive the experiment until they are gone.
  orphan_checkpoints_info orphans{
      ev.experiment_id,
      {},
      i->second.config.value("checkpoint_storage", nlohmann::json::object())};
  s.last_experiment_id = std::max(s.last_experiment_id, ev.experiment_id);
  for (auto id : i->second.trial_ids) {
    s.last_trial_id = std::max(s.last_trial_id, id);
    if (auto t = s.trials.find(id); t != s.trials.end())
      for (const auto& c : t->second.checkpoints)
        if (c.state == "deleting")
          orphans.uuids.push_back(c.uuid);
    s.trials.erase(id);
  }
  if (!orphans.uuids.empty())
    s.orphan_checkpoints.emplace(ev.experiment_id, std::move(orphans));
  s.experiments.erase(i);
  return {};
}

verdict apply_one(cluster_state& s, const experiment_resources_changed& ev) {
  auto i = s.experiments.find(ev.experiment_id);
  if (i == s.experiments.end())
    return "unknown " + experiment_name(ev.experiment_id);
  i->second.priority = ev.priority;
  i->second.weight = ev.weight;
  i->second.max_slots = ev.max_slots;
  return {};
}

verdict apply_one(cluster_state& s, const experiment_archived& ev) {
  auto i = s.experiments.find(ev.experiment_id);
  if (i == s.experiments.end())
    return "unknown " + experiment_name(ev.experiment_id);
  if (ev.archived && !is_terminal(i->second.status))
    return experiment_name(ev.experiment_id)
           + " has not ended: only an ended experiment is archived";
  i->second.archived = ev.archived;
  return {};
}

verdict apply_one(cluster_state& s, const experiment_searcher_updated& ev) {
  auto i = s.experiments.find(ev.experiment_id);
  if (i == s.experiments.end())
    return "unknown " + experiment_name(ev.experiment_id);
  if (is_terminal(i->second.status))
    return experiment_name(ev.experiment_id) + " has ended";
  auto& e = i->second;
  if (ev.inputs_through > e.searcher_inputs_queued)
    return experiment_name(ev.experiment_id) + ": searcher consumed input "
           + std::to_string(ev.inputs_through) + ", but only "
           + std::to_string(e.searcher_inputs_queued) + " were queued";
  e.searcher_state = ev.searcher_state;
  e.progress = ev.progress;
  auto through =
      ev.inputs_through < 0 ? e.searcher_inputs_queued : ev.inputs_through;
  auto& inbox = e.searcher_inbox;
  auto keep =
      std::find_if(inbox.begin(), inbox.end(),
                   [&](const searcher_input& in) { return in.seq > through; });
  inbox.erase(inbox.begin(), keep);
  return {};
}

verdict apply_one(cluster_state& s, const experiment_continued& ev) {
  auto i = s.experiments.find(ev.experiment_id);
  if (i == s.experiments.end())
    return "unknown " + experiment_name(ev.experiment_id);
  auto& e = i->second;
  if (e.unmanaged)
    return experiment_name(ev.experiment_id) + " is unmanaged";
  if (!is_terminal(e.status))
    return experiment_name(ev.experiment_id) + " is " + to_string(e.status)
           + "; only an ended experiment is continued";
  if (e.archived)
    return experiment_name(ev.experiment_id) + " is archived";
  for (size_t k = 0; k < ev.trial_ids.size(); ++k) {
    auto id = ev.trial_ids[k];
    auto t = s.trials.find(id);
    if (t == s.trials.end() || t->second.experiment_id != ev.experiment_id)
      return "trial " + std::to_string(id) + " is not a trial of "
             + experiment_name(ev.experiment_id);
    if (t->second.deleted)
      return "trial " + std::to_string(id) + " was deleted";
    if (std::find(ev.trial_ids.begin(), ev.trial_ids.begin() + k, id)
        != ev.trial_ids.begin() + k)
      return "trial " + std::to_string(id) + " is named twice";
  }
  auto max_restarts = e.max_restarts;
  if (auto m = ev.config.find("max_restarts");
      m != ev.config.end() && m->is_number_integer() && m->get<int64_t>() >= 0
      && m->get<int64_t>() <= INT32_MAX)
    max_restarts = m->get<int32_t>();
  for (auto id : e.trial_ids) {
    auto t = s.trials.find(id);
    bool reopened = std::find(ev.trial_ids.begin(), ev.trial_ids.end(), id)
                    != ev.trial_ids.end();
    if (!reopened && t != s.trials.end()
        && t->second.restarts > max_restarts + 1)
      return "trial " + std::to_string(id) + " has "
             + std::to_string(t->second.restarts)
             + " restarts, more than max_restarts "
             + std::to_string(max_restarts) + " allows";
  }
  e.status = experiment_status::active;
  e.status_reason.clear();
  e.state_changed_at_us = ev.at_us;
  e.max_restarts = max_restarts;
  e.config = ev.config;
  e.searcher_state = ev.searcher_state;
  e.progress = ev.progress;
  for (auto id : ev.trial_ids) {
    auto& t = s.trials.at(id);
    t.continued_at_us.push_back(ev.at_us);
    t.ended_before_continue_us.push_back(t.ended_at_us);
    t.status = trial_status::pending;
    t.restarts = 0;
    t.end_reason.clear();
    t.ended_at_us = 0;
    if (!ev.trial_hparams.is_null())
      t.hparams = ev.trial_hparams;
  }
  return {};
}

} // namespace det::state::detail
