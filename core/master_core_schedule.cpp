// master_core: the scheduling pass of a pool, and start orders. The pass
// itself (policy::schedule_pool) is pure; it runs here when the core
// schedules inline, and on the pool's actor (actors/pool_actor.hpp) when
// the master runs it.

#include "core/master_core.hpp"

#include "core/warm_start.hpp"

#include "policy/pool_scheduler.hpp"
#include "state/queries.hpp"

#include <climits>

namespace det {

policy::pool_snapshot
master_core::pool_snapshot_of(const std::string& pool) const {
  auto snap = pool_view_snapshot(pool);
  if (snap.pending.empty())
    return {};
  return snap;
}

policy::pool_snapshot
master_core::pool_view_snapshot(const std::string& pool) const {
  policy::pool_snapshot snap;
  for (auto a : state::agents_of_pool(st_, pool)) {
    // An agent whose instance the provisioner is terminating (it found it
    // idle a moment ago) takes no new trial: it is about to go.
    if (!state::schedulable(*a) || state::on_terminating_instance(st_, *a))
      continue;
    snap.agents.push_back(agent_view_of(*a));
  }
  auto pending = state::pending_trials(st_, pool);
  snap.pending.reserve(pending.size());
  for (auto t : pending)
    snap.pending.push_back(
        pending_view_of(*t, st_.experiments.at(t->experiment_id)));
  for (auto t : state::allocated_trials(st_, pool))
    snap.running.push_back(
        running_view_of(*t, st_.experiments.at(t->experiment_id)));
  add_tasks_to(snap, pool);
  if (auto p = state::find_pool(st_, pool))
    snap.capacity = capacity_view_of(*p);
  return snap;
}

policy::pool_delta master_core::pool_delta_of(const std::string& pool) {
  return views_.take(st_, pool, [&] { return pool_view_snapshot(pool); });
}

policy::scheduler_config
master_core::scheduler_of(const std::string& pool) const {
  if (auto i = cfg_.schedulers.find(pool); i != cfg_.schedulers.end())
    return i->second;
  policy::scheduler_config sc;
  auto p = state::find_pool(st_, pool);
  if (p != nullptr && p->config.scheduler == "fair_share")
    sc.policy = policy::scheduling_policy::fair_share;
  return sc;
}

void master_core::schedule_pool(decision& d, const std::string& pool,
                                int64_t now_us) {
  if (state::find_pool(st_, pool) == nullptr)
    return;
  place_zero_slot_tasks(d, pool, now_us);
  if (!cfg_.inline_scheduling) {
    d.schedule.insert(pool);
    return;
  }
  auto snap = pool_snapshot_of(pool);
  if (snap.pending.empty())
    return;
  apply_pass(d, pool, policy::schedule_pool(snap, scheduler_of(pool)), now_us);
}

decision master_core::apply_schedule(const std::string& pool,
                                     const policy::schedule_result& result,
                                     int64_t now_us) {
  decision d;
  if (state::find_pool(st_, pool) != nullptr)
    apply_pass(d, pool, result, now_us);
  return drive(std::move(d), now_us);
}

bool master_core::placement_still_valid(const policy::placement& p) const {
  auto t = state::find_trial(st_, std::stoll(p.allocation_id));
  if (t == nullptr || t->status != state::trial_status::pending)
    return false;
  auto e = state::find_experiment(st_, t->experiment_id);
  if (e == nullptr || e->status != state::experiment_status::active
      || e->model_definition_pending)
    return false;
  for (const auto& r : p.resources) {
    auto a = state::find_agent(st_, r.agent_id);
    // The pass may predate the provisioner's termination of its instance.
    if (a == nullptr || !state::schedulable(*a)
        || state::on_terminating_instance(st_, *a))
      return false;
    for (auto s : r.slots)
      if (s < 0 || s >= state::slot_capacity(*a)
          || !a->slots[static_cast<size_t>(s)].empty())
        return false;
  }
  return true;
}

void master_core::apply_pass(decision& d, const std::string& pool,
                             const policy::schedule_result& result,
                             int64_t now_us) {
  for (const auto& p : result.placements) {
    if (place_task(d, p, now_us))
      continue;
    if (!placement_still_valid(p))
      continue;
    auto trial_id = std::stoll(p.allocation_id);
    auto t = state::find_trial(st_, trial_id);
    trial_placed ev;
    ev.trial_id = trial_id;
    ev.allocation_id = state::next_allocation_id(*t);
    for (const auto& r : p.resources) {
      slot_assignment a{r.agent_id, {}};
      for (auto s : r.slots)
        a.slots.push_back(s);
      ev.assignments.push_back(std::move(a));
    }
    ev.at_us = now_us;
    if (emit(d, ev))
      start_effect(d, trial_id);
  }
  for (const auto& id : result.preemptions) {
    if (id.rfind("task:", 0) == 0)
      continue; // tasks are not preemptible: never asked
    auto t = state::find_trial(st_, std::stoll(id));
    if (t != nullptr && t->allocation && !t->allocation->preemption_requested)
      stop_trial(d, t->id, "preempted by a more urgent trial", false, now_us);
  }
  // In a static pool "never fits" only describes the agents there now;
  // the trial waits for bigger ones.
  const auto& cfg = st_.pools.at(pool).config;
  // With launch_error false it waits as well (created with a warning).
  bool provisioned =
      !cfg.provider.empty() && cfg.slots_per_instance > 0 && cfg_.launch_error;
  for (const auto& nf :
       provisioned ? result.unschedulable : std::vector<policy::never_fits>{}) {
    if (nf.allocation_id.rfind("task:", 0) == 0)
      continue; // a task that never fits waits (the API refuses it first)
    auto trial_id = std::stoll(nf.allocation_id);
    auto t = state::find_trial(st_, trial_id);
    if (t == nullptr || t->status != state::trial_status::pending)
      continue;
    trial_errored ev;
    ev.trial_id = trial_id;
    ev.reason = nf.reason;
    ev.at_us = now_us;
    if (emit(d, ev))
      after_trial_exit(d, trial_id, now_us);
  }
}

void master_core::start_effect(decision& d, int64_t trial_id,
                               const std::string& only_agent) {
  auto t = state::find_trial(st_, trial_id);
  if (t == nullptr || !t->allocation)
    return;
  for (const auto& a : t->allocation->assignments) {
    if (!only_agent.empty() && a.agent_id != only_agent)
      continue;
    start_order o;
    o.agent_id = a.agent_id;
    o.trial_id = trial_id;
    o.experiment_id = t->experiment_id;
    o.allocation_id = t->allocation->id;
    o.slots = a.slots;
    o.hparams = t->hparams;
    o.target_length = target_length(trial_id);
    o.resume_from = t->latest_checkpoint;
    // Until it has a checkpoint of its own, a warm-started trial starts
    // from its source's, as a fresh trial (no steps completed).
    if (!o.resume_from)
      if (auto e = state::find_experiment(st_, t->experiment_id))
        if (auto warm = warm_start_checkpoint(st_, e->config); warm && *warm) {
          o.resume_from = **warm;
          o.resume_from->steps_completed = 0;
        }
    d.effects.push_back(std::move(o));
  }
}

} // namespace det
