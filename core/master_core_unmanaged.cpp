// master_core: unmanaged experiments and trials. Their trials run outside
// the cluster (the SDK's core_v2 with a user's session): the master never
// places them, their clients set their states, and the experiment's state
// follows from its trials' (state/apply_unmanaged.cpp). A RUNNING trial
// whose client falls silent is given up after unmanaged_lost_after_us.

#include "core/master_core.hpp"

#include "core/checkpoint_order.hpp"
#include "state/queries.hpp"

namespace det {

namespace {

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

const state::trial_info*
master_core::heard_unmanaged_trial(decision& d, int64_t id, int64_t now_us) {
  auto t = state::find_listed_trial(st_, id);
  if (t == nullptr)
    d.refusal = make_error(errc::not_found,
                           "trial " + std::to_string(id) + " not found");
  else if (!st_.experiments.at(t->experiment_id).unmanaged)
    d.refusal = make_error(errc::failed_precondition,
                           "only unmanaged trials are supported");
  else {
    unmanaged_heard_[t->id] = now_us;
    return t;
  }
  return nullptr;
}

decision master_core::on(const unmanaged_experiment_open& c, int64_t now_us) {
  decision d;
  if (auto e = state::find_unmanaged_experiment(st_, c.external_id)) {
    d.reply = {{"experiment_id", e->id}, {"created", false}};
    return d;
  }
  auto ev = submission(d, c.config, c.username, c.project_id, now_us);
  if (d.refusal)
    return d;
  ev.unmanaged = true;
  ev.external_id = c.external_id;
  ev.slots_per_trial = 1;
  if (emit(d, ev))
    d.reply = {{"experiment_id", ev.experiment_id}, {"created", true}};
  return d;
}

decision master_core::on(const unmanaged_trial_open& c, int64_t now_us) {
  decision d;
  auto id = c.experiment_id;
  auto e = state::find_experiment(st_, id);
  if (e == nullptr)
    return with_refusal(d, errc::not_found,
                        "experiment " + std::to_string(id) + " not found");
  if (!e->unmanaged)
    return with_refusal(d, errc::failed_precondition,
                        "trials can only be created on unmanaged experiments");
  if (e->archived)
    return with_refusal(d, errc::failed_precondition,
                        "experiment " + std::to_string(id) + " is archived");
  unmanaged_trial_created ev;
  ev.experiment_id = id;
  ev.external_id = c.external_id;
  ev.hparams = c.hparams;
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

decision master_core::on(const unmanaged_trial_start& c, int64_t now_us) {
  decision d;
  auto t = heard_unmanaged_trial(d, c.trial_id, now_us);
  if (t == nullptr)
    return d;
  if (!c.resume && t->runs > 0)
    return with_refusal(d, errc::failed_precondition,
                        "trial has already been started");
  if (!emit(d, unmanaged_trial_state_set{t->id, t->experiment_id, "RUNNING",
                                         true, "started", c.username, now_us}))
    return d;
  const auto& after = st_.trials.at(c.trial_id);
  nlohmann::json latest = nullptr;
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

decision master_core::on(const unmanaged_trial_patch& c, int64_t now_us) {
  decision d;
  auto t = heard_unmanaged_trial(d, c.trial_id, now_us);
  if (t == nullptr)
    return d;
  // No state: a heartbeat, remembered, nothing written.
  if (c.state && *c.state != state_name(t->status))
    emit(d, unmanaged_trial_state_set{t->id, t->experiment_id, *c.state, false,
                                      "set by its client", c.username, now_us});
  return d;
}

decision master_core::on(const unmanaged_checkpoint& c, int64_t now_us) {
  decision d;
  auto t = heard_unmanaged_trial(d, c.trial_id, now_us);
  if (t == nullptr)
    return d;
  if (auto older = older_checkpoint_refusal(*t, c.steps)) {
    d.refusal = std::move(*older);
    return d;
  }
  trial_checkpointed ev;
  ev.trial_id = t->id;
  ev.uuid = c.uuid;
  ev.steps_completed = c.steps;
  ev.metadata = c.metadata;
  ev.at_us = now_us;
  emit(d, ev);
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
