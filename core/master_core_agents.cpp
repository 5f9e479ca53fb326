// master_core: agents joining, leaving and lost, their enabled state and
// their slots', and the spot interruptions of their instances. Each stop
// it forces goes through the trial's own stop (master_core_schedule.cpp).

#include "core/master_core.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <algorithm>
#include <set>

namespace det {

decision master_core::agent_connected(
    const std::string& id, const std::string& pool, int32_t slots,
    const std::string& slot_type, const std::string& instance_id,
    const std::vector<reported_allocation>& running, int64_t now_us) {
  decision d;
  if (state::find_pool(st_, pool) == nullptr) {
    d.refusal =
        make_error(errc::invalid_argument,
                   "agent " + id + ": unknown resource pool '" + pool + "'");
    return d;
  }
  if (auto known = state::find_agent(st_, id);
      known != nullptr && known->status == state::agent_status::connected) {
    // A new connection replaces one whose end the master has not seen yet
    // (e.g. the agent noticed a silence first).
    det::agent_disconnected gone;
    gone.agent_id = id;
    gone.reason = "replaced by a new connection";
    gone.reconnect_deadline_us = now_us + cfg_.agent_reconnect_wait_us;
    gone.at_us = now_us;
    if (!emit(d, gone))
      return d;
  }
  det::agent_connected ev;
  ev.agent_id = id;
  ev.pool = pool;
  ev.slots = slots;
  ev.slot_type = slot_type;
  ev.instance_id = instance_id;
  ev.at_us = now_us;
  if (!emit(d, ev))
    return d;
  // Reconcile what the agent runs with what the log says runs there.
  std::set<std::string> reported;
  for (const auto& r : running)
    reported.insert(r.allocation_id);
  // Exits the agent still holds (a previous master may have died before
  // recording them): the trial ends as it really ended, not as lost. One
  // the log already has writes nothing, and so does an exit of an
  // allocation that is not on this agent.
  {
    auto here = state::allocations_on_agent(st_, id);
    for (const auto& r : running)
      if (r.exit_code
          && std::find(here.begin(), here.end(), r.allocation_id) != here.end())
        exit_allocation(d, r.allocation_id, *r.exit_code, now_us);
  }
  for (const auto& alloc : state::allocations_on_agent(st_, id)) {
    if (reported.count(alloc) != 0)
      continue;
    auto t = state::trial_of_allocation(st_, alloc);
    if (t == nullptr)
      continue;
    if (t->status == state::trial_status::assigned
        && !t->allocation->preemption_requested) {
      // Placed but never reported running, and the agent neither runs it
      // nor holds its exit: the order never reached the agent (a master
      // died between the placement and the send). Send it again; nothing
      // was lost.
      start_effect(d, t->id, id);
      continue;
    }
    // The agent no longer has it (it restarted): the run is lost, and the
    // trial resumes elsewhere without counting a restart.
    trial_exited ex;
    ex.trial_id = t->id;
    ex.allocation_id = alloc;
    ex.exit_code = -1;
    ex.reason = "agent_lost";
    ex.at_us = now_us;
    auto trial_id = t->id;
    if (emit(d, ex))
      after_trial_exit(d, trial_id, now_us);
  }
  reconcile_tasks_on(d, id, running, now_us);
  for (const auto& r : running)
    if (!r.exit_code
        && state::trial_of_allocation(st_, r.allocation_id) == nullptr
        && state::task_of_allocation(st_, r.allocation_id) == nullptr)
      d.effects.push_back(kill_order{id, r.allocation_id});
  schedule_pool(d, pool, now_us);
  return drive(std::move(d), now_us);
}

decision master_core::agent_disconnected(const std::string& id,
                                         const std::string& why,
                                         int64_t now_us) {
  decision d;
  auto a = state::find_agent(st_, id);
  if (a == nullptr || a->status != state::agent_status::connected)
    return d;
  det::agent_disconnected ev;
  ev.agent_id = id;
  ev.reason = why;
  ev.reconnect_deadline_us = now_us + cfg_.agent_reconnect_wait_us;
  ev.at_us = now_us;
  emit(d, ev);
  return d;
}

decision master_core::spot_interruption(const std::string& agent_id,
                                        int64_t now_us) {
  decision d;
  auto a = agent_or_refuse(d, agent_id);
  if (a == nullptr)
    return d;
  if (a->enabled && !emit(d, agent_disabled{agent_id, true}))
    return d;
  auto asked = stop_trials_on(d, agent_id, "spot_interruption", false, now_us);
  d.reply = {{"trials", asked}};
  return d;
}

const state::agent_info* master_core::agent_or_refuse(decision& d,
                                                      const std::string& id) {
  auto a = state::find_agent(st_, id);
  if (a == nullptr)
    d.refusal = make_error(errc::not_found, "agent '" + id + "' not found");
  return a;
}

int64_t master_core::stop_trials_on(decision& d, const std::string& agent_id,
                                    const std::string& reason, bool kill,
                                    int64_t now_us) {
  int64_t asked = 0;
  for (const auto& alloc : state::allocations_on_agent(st_, agent_id)) {
    auto t = state::trial_of_allocation(st_, alloc);
    if (t == nullptr || !t->allocation || t->allocation->preemption_requested)
      continue;
    stop_trial(d, t->id, reason, kill, now_us);
    ++asked;
  }
  return asked;
}

decision master_core::set_agent_enabled(const std::string& agent_id,
                                        bool enabled, bool drain,
                                        int64_t now_us) {
  decision d;
  auto a = agent_or_refuse(d, agent_id);
  if (a == nullptr)
    return d;
  if (a->status != state::agent_status::connected) {
    d.refusal = make_error(errc::invalid_argument,
                           "agent '" + agent_id
                               + "' is not connected; it can be enabled or "
                                 "disabled once it is");
    return d;
  }
  if (enabled) {
    if (a->enabled)
      return d;
    auto pool = a->pool;
    if (!emit(d, agent_enabled{agent_id}))
      return d;
    schedule_pool(d, pool, now_us);
    return d;
  }
  if ((a->enabled || a->draining != drain)
      && !emit(d, agent_disabled{agent_id, drain}))
    return d;
  if (!drain) {
    stop_trials_on(d, agent_id, "agent_disabled", true, now_us);
    // Its tasks, never preempted, are killed (zero-slot ones too).
    std::vector<std::string> tasks;
    for (const auto& [id, t] : st_.tasks)
      if (t.agent_id == agent_id && state::holds_allocation(t))
        tasks.push_back(id);
    for (const auto& id : tasks)
      absorb(d, kill_task(id, "admin", "its agent was disabled", now_us));
  }
  return d;
}

decision master_core::set_slot_enabled(const std::string& agent_id,
                                       int64_t slot_id, bool enabled,
                                       bool drain, int64_t now_us) {
  decision d;
  auto a = agent_or_refuse(d, agent_id);
  if (a == nullptr)
    return d;
  if (slot_id < 0 || slot_id >= static_cast<int64_t>(a->slots.size())) {
    d.refusal = make_error(errc::not_found,
                           "agent '" + agent_id + "' has no slot "
                               + std::to_string(slot_id) + " (it has "
                               + std::to_string(a->slots.size()) + ")");
    return d;
  }
  bool disabled = std::binary_search(a->disabled_slots.begin(),
                                     a->disabled_slots.end(), slot_id);
  auto pool = a->pool;
  auto alloc = a->slots[static_cast<size_t>(slot_id)];
  if (enabled) {
    if (disabled && emit(d, slot_enabled{agent_id, slot_id}))
      schedule_pool(d, pool, now_us);
    return d;
  }
  if (!disabled && !emit(d, slot_disabled{agent_id, slot_id, drain}))
    return d;
  // Without drain the trial on the slot is killed, and is placed again
  // elsewhere, as after an agent's disable.
  if (!drain && !alloc.empty())
    if (auto t = state::trial_of_allocation(st_, alloc);
        t != nullptr && t->allocation && !t->allocation->preemption_requested)
      stop_trial(d, t->id, "slot_disabled", true, now_us);
  return d;
}

} // namespace det
