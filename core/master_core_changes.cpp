// master_core: a user's changes to an experiment: its name, notes and
// other editable fields, its deletion, its resources (priority, weight,
// max slots), archival, pause and activation, and stopping it (kill,
// cancel) or one of its trials.

#include "core/master_core.hpp"

#include "core/checkpoint_gc.hpp"
#include "core/experiment_deletion.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"
#include "util/text.hpp"

#include <cmath>

namespace det {

namespace {

/// The labels of a stored config (strings only: the config was checked).
std::vector<std::string> labels_of(const nlohmann::json& config) {
  std::vector<std::string> out;
  auto l = config.find("labels");
  if (l != config.end() && l->is_array())
    for (const auto& x : *l)
      if (x.is_string())
        out.push_back(x.get<std::string>());
  return out;
}

} // namespace

decision master_core::on(const experiment_edit& c, int64_t now_us) {
  decision d;
  auto e = experiment_or_refuse(d, c.experiment_id);
  if (e == nullptr)
    return d;
  auto name = e->config.value("name", std::string{"Experiment"});
  auto description = e->config.value("description", std::string{});
  auto labels = labels_of(e->config);
  experiment_edited ev{c.experiment_id,
                       c.name.value_or(name),
                       c.description.value_or(description),
                       c.notes.value_or(e->notes),
                       c.labels.value_or(labels),
                       c.username,
                       now_us};
  std::optional<experiment_gc_policy_changed> policy;
  if (c.checkpoint_storage)
    policy = gc_policy_change(*e, *c.checkpoint_storage, c.username, now_us);
  if (c.resources) {
    auto more =
        change_resources(c.experiment_id, *c.resources, c.username, now_us);
    if (more.refusal)
      return more;
    d = std::move(more);
  }
  // The collector's next tick deletes what new GC counts do not keep.
  if (policy)
    emit(d, *policy);
  if (ev.name == name && ev.description == description && ev.notes == e->notes
      && ev.labels == labels)
    return d; // nothing else changes
  emit(d, ev);
  return d;
}

decision master_core::delete_experiment(int64_t id, const std::string& username,
                                        int64_t now_us) {
  decision d;
  auto del = delete_experiment_events(st_, id, username, now_us,
                                      deletion_mode::after_files);
  if (del.code != errc::none) {
    d.refusal = make_error(del.code, std::move(del.why));
    return d;
  }
  for (auto& ev : del.events)
    if (!emit(d, std::move(ev)))
      return d;
  d.reply = {{"checkpointsDeleted", del.checkpoints}};
  return d;
}

decision master_core::change_resources(int64_t id,
                                       const resources_edit& resources,
                                       const std::string& username,
                                       int64_t now_us) {
  decision d;
  auto e = experiment_or_refuse(d, id);
  if (e == nullptr)
    return d;
  experiment_resources_changed ev{id,
                                  resources.priority.value_or(e->priority),
                                  resources.weight.value_or(e->weight),
                                  resources.max_slots.value_or(e->max_slots),
                                  username,
                                  now_us};
  if (state::is_terminal(e->status))
    return with_refusal(d, errc::invalid_argument,
                        "experiment " + std::to_string(id)
                            + " has ended: its "
                              "resources cannot change");
  if (ev.priority == e->priority && ev.weight == e->weight
      && ev.max_slots == e->max_slots)
    return d;
  emit(d, ev);
  // A new priority or limit may place, or preempt, trials at once.
  schedule_pool(d, e->pool, now_us);
  return d;
}

decision master_core::archive_experiment(int64_t id, bool archived,
                                         const std::string& username,
                                         int64_t now_us) {
  decision d;
  auto e = experiment_or_refuse(d, id);
  if (e == nullptr)
    return d;
  if (e->archived == archived)
    return d;
  if (archived && !state::is_terminal(e->status)) {
    d.refusal = make_error(errc::invalid_argument,
                           "experiment " + std::to_string(id) + " is "
                               + state::to_string(e->status)
                               + ": only an ended experiment can be archived");
    return d;
  }
  emit(d, experiment_archived{id, archived, username, now_us});
  return d;
}

decision master_core::pause_experiment(int64_t id, int64_t now_us) {
  decision d;
  if (user_state_change(d, id, "PAUSED", "paused", now_us) == nullptr)
    return d;
  for (auto t : state::trials_of_experiment(st_, id))
    if (state::holds_allocation(t->status))
      stop_trial(d, t->id, "paused", false, now_us);
  return d;
}

decision master_core::activate_experiment(int64_t id, int64_t now_us) {
  decision d;
  auto e = user_state_change(d, id, "ACTIVE", "activated", now_us);
  if (e == nullptr)
    return d;
  schedule_pool(d, e->pool, now_us);
  return drive(std::move(d), now_us);
}

decision master_core::kill_experiment(int64_t id, int64_t now_us) {
  return stop_experiment(id, true, now_us);
}

decision master_core::cancel_experiment(int64_t id, int64_t now_us) {
  return stop_experiment(id, false, now_us);
}

decision master_core::stop_experiment(int64_t id, bool kill, int64_t now_us) {
  decision d;
  auto e = experiment_or_refuse(d, id, kill ? "killed" : "canceled");
  if (e == nullptr)
    return d;
  if (state::is_terminal(e->status))
    return d; // stopping an ended experiment changes nothing
  // A kill wins over a cancel in progress; a cancel does not soften a kill.
  auto stopping = kill ? state::experiment_status::stopping_killed
                       : state::experiment_status::stopping_canceled;
  if (e->status != stopping
      && e->status != state::experiment_status::stopping_killed)
    emit(d, experiment_state_changed{
                id, kill ? "STOPPING_KILLED" : "STOPPING_CANCELED",
                kill ? "killed by user" : "canceled by user", now_us});
  for (auto t : state::trials_of_experiment(st_, id))
    stop_trial(d, t->id, kill ? "killed" : "canceled", kill, now_us);
  maybe_finish_experiment(d, id, now_us);
  return drive(std::move(d), now_us);
}

decision master_core::kill_trial(int64_t id, int64_t now_us) {
  decision d;
  auto t = trial_or_refuse(d, id, "killed");
  if (t == nullptr)
    return d;
  auto exp_id = t->experiment_id;
  stop_trial(d, id, "killed", true, now_us);
  t = state::find_trial(st_, id);
  if (state::is_terminal(t->status))
    after_trial_exit(d, id, now_us);
  else
    maybe_finish_experiment(d, exp_id, now_us);
  return drive(std::move(d), now_us);
}

} // namespace det
