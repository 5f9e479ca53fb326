// master_core: creating experiments, driving their searchers and trials,
// and the end of trials and experiments.

#include "core/master_core.hpp"

#include "core/checkpoint_gc.hpp"
#include "core/config_policies.hpp"
#include "core/warm_start.hpp"
#include "messages/errc.hpp"
#include "messages/priority.hpp"
#include "policy/log_policies.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"

namespace det {

namespace {

template <class T>
T value_at(const nlohmann::json& j, const char* a, const char* b, T fallback) {
  auto i = j.find(a);
  if (i == j.end() || !i->is_object())
    return fallback;
  auto k = i->find(b);
  if (k == i->end() || k->is_null())
    return fallback;
  try {
    return k->get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

} // namespace

experiment_submitted master_core::submission(decision& d,
                                             const nlohmann::json& config,
                                             const std::string& owner,
                                             int64_t project_id,
                                             int64_t now_us) const {
  experiment_submitted ev;
  ev.experiment_id = state::next_experiment_id(st_);
  ev.owner = owner;
  ev.config = config;
  ev.pool = value_at<std::string>(config, "resources", "resource_pool", "");
  if (ev.pool.empty() && !cfg_.pools.empty())
    ev.pool = cfg_.pools.front().pool;
  ev.slots_per_trial =
      value_at<int32_t>(config, "resources", "slots_per_trial", 1);
  ev.priority =
      value_at<int32_t>(config, "resources", "priority", default_priority);
  ev.weight = value_at<double>(config, "resources", "weight", 1.0);
  ev.max_restarts = config.value("max_restarts", 5);
  ev.at_us = now_us;
  if (state::find_pool(st_, ev.pool) == nullptr) {
    d.refusal = make_error(errc::invalid_argument,
                           "resources.resource_pool: no resource pool named '"
                               + ev.pool + "'");
    return ev;
  }
  if (auto why = project_for(config, ev.pool, project_id); !why.empty()) {
    d.refusal =
        make_error(project_id < 0 ? errc::not_found : errc::invalid_argument,
                   std::move(why));
    return ev;
  }
  ev.project_id = project_id;
  return ev;
}

decision master_core::submit_experiment(const nlohmann::json& config,
                                        const std::string& owner,
                                        int64_t now_us) {
  return create_experiment(config, owner, true, false, now_us);
}

decision master_core::create_experiment(const nlohmann::json& config,
                                        const std::string& owner, bool activate,
                                        bool model_definition_pending,
                                        int64_t now_us, int64_t project_id) {
  decision d;
  auto ev = submission(d, config, owner, project_id, now_us);
  if (d.refusal)
    return d;
  // The API merged the invariant configs in; the constraints are decided
  // here, on the policies the master holds now.
  if (auto p = state::find_project(st_, ev.project_id))
    if (auto why = experiment_constraint_problem(
            st_, p->workspace_id, config, cfg_.priority_smaller_is_higher);
        !why.empty()) {
      d.refusal = make_error(errc::invalid_argument, std::move(why));
      return d;
    }
  if (auto warm = warm_start_checkpoint(st_, config); !warm) {
    d.refusal = std::move(warm.error());
    return d;
  }
  if (auto why = policy::log_policies_problem(
          config.value("log_policies", nlohmann::json()));
      !why.empty()) {
    d.refusal = make_error(errc::invalid_argument, std::move(why));
    return d;
  }
  auto sc = policy::parse_searcher_config(
      config.value("searcher", nlohmann::json::object()));
  if (!sc) {
    d.refusal = std::move(sc.error());
    return d;
  }
  auto probe =
      experiment_searcher::make(config, 0, nlohmann::json::object(), 0);
  ev.model_definition_pending = model_definition_pending;
  if (!emit(d, ev))
    return d;
  d.reply = {{"experiment_id", ev.experiment_id}};
  if (probe && !activate
      && !emit(d, experiment_state_changed{ev.experiment_id, "PAUSED",
                                           "created paused", now_us}))
    return d;
  if (!probe) {
    // The config passed validation but the searcher refuses it: the
    // experiment ends in ERROR rather than hang.
    experiment_state_changed fail;
    fail.experiment_id = ev.experiment_id;
    fail.state = "ERROR";
    fail.reason = render(probe.error());
    fail.at_us = now_us;
    emit(d, fail);
    return d;
  }
  d.searchers.insert(ev.experiment_id);
  return drive(std::move(d), now_us);
}

void absorb(decision& d, decision more) {
  for (auto& ev : more.events)
    d.events.push_back(std::move(ev));
  d.effects.insert(d.effects.end(), more.effects.begin(), more.effects.end());
  d.schedule.insert(more.schedule.begin(), more.schedule.end());
  d.searchers.insert(more.searchers.begin(), more.searchers.end());
  d.trials.insert(more.trials.begin(), more.trials.end());
  if (more.refusal && !d.refusal)
    d.refusal = std::move(more.refusal);
}

decision master_core::drive(decision d, int64_t now_us) {
  if (!cfg_.inline_searchers)
    return d;
  while (!d.searchers.empty()) {
    auto id = *d.searchers.begin();
    d.searchers.erase(d.searchers.begin());
    auto e = state::find_experiment(st_, id);
    if (e == nullptr || e->unmanaged || state::is_terminal(e->status)) {
      searchers_.erase(id);
      continue;
    }
    auto i = searchers_.find(id);
    if (i == searchers_.end()) {
      auto made = experiment_searcher::of(*e, cfg_.seed);
      if (!made) {
        searcher_step failed;
        failed.experiment_id = id;
        failed.failure =
            "the searcher cannot be restored: " + render(made.error());
        absorb(d, apply_searcher_step(failed, now_us));
        continue;
      }
      i = searchers_.emplace(id, std::move(*made)).first;
    }
    std::optional<searcher_step> step;
    if (!i->second.started())
      step = i->second.start(id);
    else
      step = i->second.feed(id, e->searcher_inbox);
    if (!step)
      continue;
    absorb(d, apply_searcher_step(*step, now_us));
  }
  return d;
}

bool master_core::searcher_closed(const state::trial_info& t) const {
  const auto& e = st_.experiments.at(t.experiment_id);
  auto line = ledger_line(e.searcher_state, t.request_id);
  return line && line->closed;
}

void master_core::settle(decision& d, const trial_step& step, int64_t now_us) {
  switch (step.verdict) {
  case trial_verdict::error:
    emit(d, trial_errored{step.trial_id, step.reason, now_us});
    break;
  case trial_verdict::cancel:
    emit(d, trial_canceled{step.trial_id, step.reason, now_us});
    break;
  case trial_verdict::restart:
    // Resumes from its latest checkpoint when placed again.
    emit(d, trial_restarted{step.trial_id, now_us});
    break;
  }
}

decision master_core::apply_trial_step(const trial_step& step, int64_t now_us) {
  decision d;
  auto t = state::find_trial(st_, step.trial_id);
  if (t == nullptr || t->status != state::trial_status::exited
      || t->runs != step.runs) {
    d.refusal =
        make_error(errc::conflict,
                   "trial " + std::to_string(step.trial_id) + ": no exited run "
                       + std::to_string(step.runs) + " to settle");
    return d;
  }
  auto exp_id = t->experiment_id;
  settle(d, step, now_us);
  maybe_finish_experiment(d, exp_id, now_us);
  if (step.verdict == trial_verdict::restart)
    schedule_pool(d, st_.experiments.at(exp_id).pool, now_us);
  return drive(std::move(d), now_us);
}

decision master_core::apply_searcher_step(const searcher_step& step,
                                          int64_t now_us) {
  decision d;
  auto e = state::find_experiment(st_, step.experiment_id);
  if (e == nullptr || state::is_terminal(e->status))
    return d;
  if (!step.failure.empty()) {
    // Its trials are asked to checkpoint and stop; the experiment ends in
    // ERROR once they have.
    if (!state::is_stopping(e->status)
        && emit(d,
                experiment_state_changed{step.experiment_id, "STOPPING_ERROR",
                                         step.failure, now_us})) {
      for (auto t : state::trials_of_experiment(st_, step.experiment_id))
        stop_trial(d, t->id, "experiment error", false, now_us);
    }
    maybe_finish_experiment(d, step.experiment_id, now_us);
    return d;
  }
  auto consumed = searcher_fed_through(*e);
  bool started = searcher_started(e->searcher_state);
  if (step.inputs_after != consumed || step.first == started
      || step.inputs_through < step.inputs_after
      || step.inputs_through > e->searcher_inputs_queued) {
    d.refusal = make_error(
        errc::conflict,
        "experiment " + std::to_string(step.experiment_id)
            + ": the searcher's step follows input "
            + std::to_string(step.inputs_after) + (step.first ? " (start)" : "")
            + ", the log is at input " + std::to_string(consumed)
            + (started ? "" : " (not started)"));
    return d;
  }
  auto id = step.experiment_id;
  auto pool = e->pool;
  bool stopping = state::is_stopping(e->status);
  bool created = false;
  for (const auto& op : step.ops) {
    auto c = std::get_if<policy::create_trial>(&op);
    if (c == nullptr || stopping)
      continue; // a stopping experiment starts nothing new
    trial_created tc;
    tc.trial_id = state::next_trial_id(st_);
    tc.experiment_id = id;
    tc.hparams = c->hparams;
    tc.request_id = std::to_string(c->id);
    tc.at_us = now_us;
    if (emit(d, tc))
      created = true;
  }
  experiment_searcher_updated up;
  up.experiment_id = id;
  up.searcher_state = step.saved;
  up.progress = step.progress;
  up.inputs_through = step.inputs_through;
  emit(d, up);
  // The experiment's trials by request id (those created above included),
  // built only for a step that closes or stops one.
  std::map<std::string, int64_t> trial_of;
  auto trial_for = [&](uint64_t req) -> int64_t {
    if (trial_of.empty())
      for (auto tid : st_.experiments.at(id).trial_ids)
        trial_of[st_.trials.at(tid).request_id] = tid;
    auto i = trial_of.find(std::to_string(req));
    return i == trial_of.end() ? 0 : i->second;
  };
  for (const auto& op : step.ops)
    if (auto cl = std::get_if<policy::close_trial>(&op))
      if (auto tid = trial_for(cl->id))
        stop_trial(d, tid, "searcher closed", false, now_us);
  for (auto req : step.stop) {
    auto tr = state::find_trial(st_, trial_for(req));
    if (tr != nullptr && tr->allocation
        && !tr->allocation->preemption_requested)
      stop_trial(d, tr->id, "stopped by searcher", false, now_us);
  }
  maybe_finish_experiment(d, id, now_us);
  if (created)
    schedule_pool(d, pool, now_us);
  return d;
}

void master_core::stop_trial(decision& d, int64_t trial_id,
                             const std::string& reason, bool kill,
                             int64_t now_us) {
  auto t = state::find_trial(st_, trial_id);
  if (t == nullptr || state::is_terminal(t->status))
    return;
  if (t->status == state::trial_status::pending
      || t->status == state::trial_status::exited) {
    trial_canceled ev;
    ev.trial_id = trial_id;
    ev.reason = reason;
    ev.at_us = now_us;
    emit(d, ev);
    return;
  }
  auto alloc = *t->allocation;
  // A kill after a gentler stop request (a pause, the scheduler's
  // preemption) is recorded too: the exit that follows is the kill's, not
  // a failure counted against max_restarts.
  if (!alloc.preemption_requested
      || (kill && alloc.preemption_reason != "killed")) {
    trial_preemption_requested ev;
    ev.trial_id = trial_id;
    ev.allocation_id = alloc.id;
    ev.reason = reason;
    ev.at_us = now_us;
    emit(d, ev);
  }
  for (const auto& a : alloc.assignments) {
    if (kill)
      d.effects.push_back(kill_order{a.agent_id, alloc.id});
    else
      d.effects.push_back(preempt_order{a.agent_id, alloc.id, reason});
  }
}

void master_core::after_trial_exit(decision& d, int64_t trial_id,
                                   int64_t now_us) {
  auto t = state::find_trial(st_, trial_id);
  if (t == nullptr)
    return;
  auto exp_id = t->experiment_id;
  if (t->status == state::trial_status::exited) {
    auto f = facts_of(st_, *t, searcher_closed(*t));
    if (cfg_.inline_trials)
      settle(d, after_exit(f), now_us);
    else
      d.trials[trial_id] = f;
  }
  // A trial that ended queued an input for its searcher (state::apply);
  // emit() named the experiment in d.searchers.
  maybe_finish_experiment(d, exp_id, now_us);
}

void master_core::maybe_finish_experiment(decision& d, int64_t experiment_id,
                                          int64_t now_us) {
  const auto& e = st_.experiments.at(experiment_id);
  if (e.unmanaged || state::is_terminal(e.status)
      || state::live_trial_count(st_, experiment_id) > 0)
    return;
  // A searcher that shut down creates nothing more, whatever inputs it
  // has yet to take.
  bool searcher_done = searcher_shut_down(e.searcher_state);
  experiment_state_changed ev;
  ev.experiment_id = experiment_id;
  ev.at_us = now_us;
  if (e.status == state::experiment_status::stopping_killed
      || e.status == state::experiment_status::stopping_canceled) {
    ev.state = "CANCELED";
  } else if (e.status == state::experiment_status::stopping_error) {
    ev.state = "ERROR";
    ev.reason = e.status_reason;
  } else if (searcher_done) {
    bool any_completed = false;
    bool any_errored = false;
    for (auto t : state::trials_of_experiment(st_, experiment_id)) {
      any_completed |= t->status == state::trial_status::completed;
      any_errored |= t->status == state::trial_status::errored;
    }
    // Every trial killed by a user (none completed, none failed): the
    // experiment was canceled, as upstream reports it, not an error.
    ev.state = any_completed ? "COMPLETED" : any_errored ? "ERROR" : "CANCELED";
    if (!any_completed)
      ev.reason = any_errored ? "no trial completed" : "every trial was killed";
  } else {
    return;
  }
  if (emit(d, ev))
    searchers_.erase(experiment_id);
}

const state::experiment_info*
master_core::user_state_change(decision& d, int64_t id, const char* to,
                               const char* verb, int64_t now_us) {
  auto e = experiment_or_refuse(d, id, verb);
  if (e == nullptr)
    return nullptr;
  auto from = state::to_string(e->status);
  experiment_state_changed ev{id, to, std::string{verb} + " by user", now_us};
  if (!emit(d, ev)) {
    d.refusal = make_error(errc::invalid_argument,
                           "experiment " + std::to_string(id) + " is " + from
                               + " and cannot be " + verb);
    return nullptr;
  }
  return e;
}

void master_core::settle_model_definitions(decision& d, int64_t now_us) {
  if (!cfg_.model_definitions_stored)
    return;
  std::vector<int64_t> pending;
  for (const auto& [id, e] : st_.experiments)
    if (e.model_definition_pending && !state::is_terminal(e.status))
      pending.push_back(id);
  for (auto id : pending)
    absorb(d, cfg_.model_definitions_stored->count(id) != 0
                  ? model_definition_stored(id, now_us)
                  : model_definition_lost(
                      id,
                      "its model definition was not stored before the master "
                      "stopped; submit it again",
                      now_us));
}

decision master_core::model_definition_stored(int64_t id, int64_t now_us) {
  decision d;
  auto e = state::find_experiment(st_, id);
  if (e == nullptr || !e->model_definition_pending)
    return d;
  emit(d, experiment_model_stored{id, now_us});
  schedule_pool(d, e->pool, now_us);
  return drive(std::move(d), now_us);
}

decision master_core::model_definition_lost(int64_t id, const std::string& why,
                                            int64_t now_us) {
  decision d;
  auto e = state::find_experiment(st_, id);
  if (e == nullptr || state::is_terminal(e->status))
    return d;
  if (!state::is_stopping(e->status))
    emit(d, experiment_state_changed{id, "STOPPING_ERROR", why, now_us});
  for (auto t : state::trials_of_experiment(st_, id))
    stop_trial(d, t->id, "experiment error", true, now_us);
  maybe_finish_experiment(d, id, now_us);
  return drive(std::move(d), now_us);
}

} // namespace det
