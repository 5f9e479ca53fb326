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

/// Why `v` is not a string keeping `rules`, for field `name`; "" if it is.
std::string text_field_problem(const char* name, const nlohmann::json& v,
                               const util::text_rules& rules) {
  if (!v.is_string())
    return std::string{name} + ": expected a string";
  if (auto why = util::text_problem(v.get_ref<const std::string&>(), rules);
      !why.empty())
    return std::string{name} + " " + why;
  return {};
}

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

decision master_core::edit_experiment(int64_t id, const nlohmann::json& patch,
                                      const std::string& username,
                                      int64_t now_us) {
  decision d;
  auto e = experiment_or_refuse(d, id);
  if (e == nullptr)
    return d;
  if (!patch.is_object())
    return with_refusal(d, errc::invalid_argument,
                        "the patch must be a JSON object");
  experiment_edited ev;
  ev.experiment_id = id;
  ev.name = e->config.value("name", std::string{"Experiment"});
  ev.description = e->config.value("description", std::string{});
  ev.notes = e->notes;
  ev.labels = labels_of(e->config);
  ev.username = username;
  ev.at_us = now_us;
  for (const auto& [key, v] : patch.items()) {
    if (v.is_null())
      continue;
    std::string why;
    if (key == "id") {
      if (!v.is_number_integer() || v.get<int64_t>() != id)
        why = "id: the patch names experiment " + v.dump(-1, ' ', true)
              + ", not " + std::to_string(id);
    } else if (key == "name") {
      why = text_field_problem("name", v, {255, false, false});
      if (why.empty())
        ev.name = v.get<std::string>();
    } else if (key == "description") {
      why = text_field_problem("description", v, {16 * 1024, true, true});
      if (why.empty())
        ev.description = v.get<std::string>();
    } else if (key == "notes") {
      why = text_field_problem("notes", v, {64 * 1024, true, true});
      if (why.empty())
        ev.notes = v.get<std::string>();
    } else if (key == "labels") {
      if (!v.is_array() || v.size() > 1000)
        why = "labels: expected a list of at most 1000 labels";
      for (size_t i = 0; why.empty() && i < v.size(); ++i)
        why = text_field_problem(("labels[" + std::to_string(i) + "]").c_str(),
                                 v[i], {255, false, false});
      if (why.empty())
        ev.labels = v.get<std::vector<std::string>>();
    } else if (key == "resources") {
      // Decided below, after the other fields are checked.
    } else if (key == "checkpointStorage") {
      // Decided below: a new GC policy.
    } else {
      why = key + ": not a field of an experiment that can be edited";
    }
    if (!why.empty())
      return with_refusal(d, errc::invalid_argument, std::move(why));
  }
  std::optional<experiment_gc_policy_changed> policy;
  if (auto c = patch.find("checkpointStorage");
      c != patch.end() && !c->is_null()) {
    auto change = gc_policy_change(*e, *c, username, now_us);
    if (!change) {
      d.refusal = std::move(change.error());
      return d;
    }
    policy = *change;
  }
  if (auto r = patch.find("resources"); r != patch.end() && !r->is_null()) {
    auto more = change_resources(id, *r, username, now_us);
    if (more.refusal)
      return more;
    d = std::move(more);
  }
  // The collector's next tick deletes what new GC counts do not keep.
  if (policy)
    emit(d, *policy);
  if (ev.name == e->config.value("name", std::string{"Experiment"})
      && ev.description == e->config.value("description", std::string{})
      && ev.notes == e->notes && ev.labels == labels_of(e->config))
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
                                       const nlohmann::json& resources,
                                       const std::string& username,
                                       int64_t now_us) {
  decision d;
  auto e = experiment_or_refuse(d, id);
  if (e == nullptr)
    return d;
  if (!resources.is_object())
    return with_refusal(d, errc::invalid_argument,
                        "resources: expected an object");
  experiment_resources_changed ev{id,           e->priority, e->weight,
                                  e->max_slots, username,    now_us};
  for (const auto& [key, v] : resources.items()) {
    if (v.is_null())
      continue;
    if (key == "priority") {
      if (!v.is_number_integer() || v.get<int64_t>() < 1
          || v.get<int64_t>() > 99)
        return with_refusal(
            d, errc::invalid_argument,
            "resources.priority: expected a whole number from 1 "
            "(first) to 99, not "
                + v.dump(-1, ' ', true));
      ev.priority = v.get<int32_t>();
    } else if (key == "weight") {
      if (!v.is_number() || !(v.get<double>() > 0.0)
          || !std::isfinite(v.get<double>()))
        return with_refusal(d, errc::invalid_argument,
                            "resources.weight: expected a positive number, not "
                                + v.dump(-1, ' ', true));
      ev.weight = v.get<double>();
    } else if (key == "maxSlots" || key == "max_slots") {
      if (!v.is_number_integer() || v.get<int64_t>() < 0
          || v.get<int64_t>() > INT32_MAX)
        return with_refusal(d, errc::invalid_argument,
                            "resources." + key
                                + ": expected a whole number of slots (0 = no "
                                  "limit), not "
                                + v.dump(-1, ' ', true));
      ev.max_slots = v.get<int32_t>();
    } else {
      return with_refusal(d, errc::invalid_argument,
                          "resources." + key
                              + ": not a field that can be changed (priority, "
                                "weight, maxSlots)");
    }
  }
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
