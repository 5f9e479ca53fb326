// master_core: unmanaged experiments and trials. Their trials run outside
// the cluster (the SDK's core_v2 with a user's session): the master never
// places them, their clients set their states, and the experiment's state
// follows from its trials' (state/apply_unmanaged.cpp). A RUNNING trial
// whose client falls silent is given up after unmanaged_lost_after_us.

#include "core/master_core.hpp"

#include "core/record_args.hpp"
#include "messages/metric_group.hpp"
#include "state/queries.hpp"

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;

/// An unmanaged trial's client-given state, as upstream spells it (with or
/// without "STATE_").
std::string trial_state_arg(const json& a) {
  auto v = text(a, "state", "", name_rules);
  if (v.rfind("STATE_", 0) == 0)
    v = v.substr(6);
  for (const char* ok : {"PAUSED", "RUNNING", "COMPLETED", "CANCELED", "ERROR"})
    if (v == ok)
      return v;
  refuse(errc::invalid_argument,
         "state: '" + v
             + "' is not a state an unmanaged trial can be set to (PAUSED, "
               "RUNNING, COMPLETED, CANCELED, ERROR)");
}

const char* state_name(state::trial_status x) {
  switch (x) {
  case state::trial_status::running:
    return "RUNNING";
  case state::trial_status::completed:
    return "COMPLETED";
  case state::trial_status::canceled:
    return "CANCELED";
  case state::trial_status::errored:
    return "ERROR";
  default:
    return "PAUSED";
  }
}

} // namespace

bool master_core::unmanaged_refusal(decision& d,
                                    const state::experiment_info& e,
                                    const char* verb) const {
  if (!e.unmanaged)
    return false;
  d.refusal = make_error(errc::failed_precondition,
                         "experiment " + std::to_string(e.id)
                             + " is unmanaged: its trials run outside the "
                               "cluster and set their own states; it cannot "
                               "be "
                             + verb + " here");
  return true;
}

const state::experiment_info*
master_core::experiment_or_refuse(decision& d, int64_t id,
                                  const char* verb) const {
  auto e = state::find_experiment(st_, id);
  if (e == nullptr) {
    d.refusal = make_error(errc::not_found,
                           "experiment " + std::to_string(id) + " not found");
  } else if (e->deleting) {
    // As upstream: a DELETING experiment takes no command.
    d.refusal =
        make_error(errc::failed_precondition,
                   "experiment " + std::to_string(id) + " is being deleted");
    return nullptr;
  } else if (verb != nullptr && unmanaged_refusal(d, *e, verb)) {
    return nullptr;
  }
  return e;
}

const state::trial_info* master_core::trial_or_refuse(decision& d, int64_t id,
                                                      const char* verb) const {
  auto t = state::find_trial(st_, id);
  if (t == nullptr)
    d.refusal = make_error(errc::not_found,
                           "trial " + std::to_string(id) + " not found");
  else if (verb != nullptr
           && unmanaged_refusal(d, st_.experiments.at(t->experiment_id), verb))
    return nullptr;
  return t;
}

decision master_core::unmanaged(const record_command& c, int64_t now_us) {
  decision d;
  const auto& a = c.args;
  // The unmanaged trial named by "trialId", or a refusal.
  auto trial_arg = [&]() -> const state::trial_info& {
    auto id = id_arg(a, "trialId");
    auto t = state::find_listed_trial(st_, id);
    if (t == nullptr)
      refuse(errc::not_found, "trial " + std::to_string(id) + " not found");
    if (!st_.experiments.at(t->experiment_id).unmanaged)
      refuse(errc::failed_precondition, "only unmanaged trials are supported");
    return *t;
  };
  try {
    if (!a.is_object())
      refuse(errc::invalid_argument, "arguments: expected an object");
    if (c.op == "unmanaged.experiment") {
      auto ext = text(a, "externalExperimentId", "", name_rules);
      if (auto e = state::find_unmanaged_experiment(st_, ext)) {
        d.reply = {{"experiment_id", e->id}, {"created", false}};
        return d;
      }
      auto config = object(a, "config", json::object());
      auto ev =
          submission(d, config, c.username,
                     has(a, "projectId") ? id_arg(a, "projectId") : 0, now_us);
      if (d.refusal)
        return d;
      ev.unmanaged = true;
      ev.external_id = ext;
      ev.slots_per_trial = 1;
      if (emit(d, ev))
        d.reply = {{"experiment_id", ev.experiment_id}, {"created", true}};
      return d;
    }
    if (c.op == "unmanaged.trial") {
      auto id = id_arg(a, "experimentId");
      auto e = state::find_experiment(st_, id);
      if (e == nullptr)
        refuse(errc::not_found,
               "experiment " + std::to_string(id) + " not found");
      if (!e->unmanaged)
        refuse(errc::failed_precondition,
               "trials can only be created on unmanaged experiments");
      if (e->archived)
        refuse(errc::failed_precondition,
               "experiment " + std::to_string(id) + " is archived");
      unmanaged_trial_created ev;
      ev.experiment_id = id;
      ev.external_id = text(a, "externalTrialId", "", name_rules);
      ev.hparams = object(a, "hparams", json::object());
      ev.username = c.username;
      ev.at_us = now_us;
      auto known = state::find_unmanaged_trial(st_, *e, ev.external_id);
      ev.trial_id = known ? known->id : state::next_trial_id(st_);
      if (known && known->hparams == ev.hparams) {
        d.reply = {{"trial_id", known->id}};
        return d;
      }
      if (emit(d, ev))
        d.reply = {{"trial_id", ev.trial_id}};
      return d;
    }
    if (c.op == "unmanaged.start") {
      const auto& t = trial_arg();
      auto resume = a.value("resume", false);
      if (!resume && t.runs > 0)
        refuse(errc::failed_precondition, "trial has already been started");
      unmanaged_heard_[t.id] = now_us;
      if (!emit(d,
                unmanaged_trial_state_set{t.id, t.experiment_id, "RUNNING",
                                          true, "started", c.username, now_us}))
        return d;
      const auto& after = st_.trials.at(t.id);
      json latest = nullptr;
      int64_t steps = 0;
      // A later run resumes from the latest checkpoint, as upstream's does.
      if (after.runs > 1 && after.latest_checkpoint) {
        latest = after.latest_checkpoint->uuid;
        steps = after.latest_checkpoint->steps_completed;
      }
      d.reply = {{"trialRunId", after.runs},
                 {"latestCheckpoint", latest},
                 {"stepsCompleted", steps}};
      return d;
    }
    if (c.op == "unmanaged.patch") {
      const auto& t = trial_arg();
      unmanaged_heard_[t.id] = now_us;
      if (!has(a, "state"))
        return d; // a heartbeat: remembered, nothing written
      auto to = trial_state_arg(a);
      if (to != state_name(t.status))
        emit(d, unmanaged_trial_state_set{t.id, t.experiment_id, to, false,
                                          "set by its client", c.username,
                                          now_us});
      return d;
    }
    if (c.op == "unmanaged.metrics") {
      const auto& t = trial_arg();
      unmanaged_heard_[t.id] = now_us;
      trial_metrics_reported ev;
      ev.trial_id = t.id;
      ev.kind = text(a, "group", "", name_rules);
      if (auto why = metric_group_problem(ev.kind); !why.empty())
        refuse(errc::invalid_argument, "group " + why);
      ev.steps_completed = a.value("steps", int64_t{0});
      ev.metrics = object(a, "metrics", json::object());
      ev.at_us = now_us;
      emit(d, ev);
      return d;
    }
    if (c.op == "unmanaged.checkpoint") {
      const auto& t = trial_arg();
      unmanaged_heard_[t.id] = now_us;
      auto steps = a.value("steps", int64_t{0});
      if (t.latest_checkpoint && steps < t.latest_checkpoint->steps_completed)
        refuse(errc::invalid_argument,
               "checkpoint.metadata.steps_completed: " + std::to_string(steps)
                   + " is older than trial " + std::to_string(t.id)
                   + "'s latest checkpoint at step "
                   + std::to_string(t.latest_checkpoint->steps_completed));
      trial_checkpointed ev;
      ev.trial_id = t.id;
      ev.uuid = text(a, "uuid", "", name_rules);
      ev.steps_completed = steps;
      ev.metadata = object(a, "metadata", json::object());
      ev.at_us = now_us;
      emit(d, ev);
      return d;
    }
    refuse(errc::invalid_argument, "unknown command '" + c.op + "'");
  } catch (const refused& r) {
    // Every refusal comes before the first event is decided.
    d.refusal = make_error(r.code, r.why);
  } catch (const json::exception& e) {
    d.refusal = make_error(errc::invalid_argument, e.what());
  }
  return d;
}

void master_core::sweep_lost_unmanaged(decision& d, int64_t now_us) {
  std::vector<std::pair<int64_t, int64_t>> lost;
  for (const auto& [id, t] : st_.trials) {
    if (t.status != state::trial_status::running
        || !st_.experiments.at(t.experiment_id).unmanaged)
      continue;
    auto last = std::max(t.last_activity_us, started_at_us_);
    if (auto h = unmanaged_heard_.find(id); h != unmanaged_heard_.end())
      last = std::max(last, h->second);
    if (now_us - last >= cfg_.unmanaged_lost_after_us)
      lost.emplace_back(id, t.experiment_id);
  }
  for (auto [id, exp] : lost) {
    unmanaged_heard_.erase(id);
    emit(d, unmanaged_trial_state_set{
                id, exp, "ERROR", false,
                "no heartbeat from its client for "
                    + std::to_string(cfg_.unmanaged_lost_after_us / 1000000)
                    + " s: given up as lost",
                "", now_us});
  }
}

} // namespace det
