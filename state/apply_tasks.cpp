// apply_one for tasks (messages/events_tasks.hpp): commands, notebooks,
// shells, TensorBoards and generic tasks. A task is queued, placed on one
// agent (holding its slots like a trial's allocation), running, perhaps
// asked to stop, then terminated; terminated tasks stay until forgotten.

#include "state/apply_detail.hpp"
#include "state/queries.hpp"

#include <algorithm>
#include <set>

namespace det::state::detail {

namespace {

std::string task_name(const std::string& id) {
  return "task " + quote(id);
}

verdict find_task_of(cluster_state& s, const std::string& id, task_info*& out) {
  auto i = s.tasks.find(id);
  if (i == s.tasks.end())
    return "unknown " + task_name(id);
  out = &i->second;
  return {};
}

/// Points `out` at task `id` holding allocation `alloc`.
verdict find_holding_task(cluster_state& s, const std::string& id,
                          const std::string& alloc, task_info*& out) {
  if (auto why = find_task_of(s, id, out); !why.empty())
    return why;
  if (!holds_allocation(*out) || out->allocation_id != alloc)
    return task_name(id) + " does not hold allocation " + quote(alloc);
  return {};
}

/// Why `ev` cannot place its task on its agent, or "".
verdict check_task_placement(const cluster_state& s, const task_info& t,
                             const task_placed& ev) {
  auto i = s.agents.find(ev.agent_id);
  if (i == s.agents.end())
    return "unknown agent " + quote(ev.agent_id);
  const auto& agent = i->second;
  if (!schedulable(agent))
    return "agent " + quote(ev.agent_id) + " takes no new work";
  if (agent.pool != t.pool)
    return "agent " + quote(ev.agent_id) + " is in pool " + quote(agent.pool)
           + ", not " + quote(t.pool);
  if (static_cast<int64_t>(ev.slots.size()) != t.slots)
    return "placement has " + std::to_string(ev.slots.size())
           + " slots, the task needs " + std::to_string(t.slots);
  auto free = free_slot_ids(agent);
  std::set<int64_t> seen;
  for (auto slot : ev.slots) {
    if (!seen.insert(slot).second)
      return "slot " + std::to_string(slot) + " is assigned twice";
    if (!std::binary_search(free.begin(), free.end(), slot))
      return "slot " + std::to_string(slot) + " of agent " + quote(ev.agent_id)
             + " is not free";
  }
  return {};
}

} // namespace

void end_task_allocation(cluster_state& s, task_info& t,
                         const std::string& reason, int32_t exit_code,
                         const std::string& message, int64_t at_us) {
  if (holds_allocation(t)) {
    if (auto i = s.agents.find(t.agent_id); i != s.agents.end()) {
      auto& agent = i->second;
      for (auto& used_by : agent.slots)
        if (used_by == t.allocation_id)
          used_by.clear();
      trim_retired_slots(agent);
      if (used_slots(agent) == 0 && !agent.idle_since_us)
        agent.idle_since_us = at_us;
    }
  }
  t.agent_slots.clear();
  t.state = task_state::terminated;
  t.ended_at_us = at_us;
  t.exit_reason = reason;
  t.exit_code = exit_code;
  t.exit_message = message;
}

verdict apply_one(cluster_state& s, const task_launched& ev) {
  if (s.tasks.count(ev.task_id) != 0)
    return task_name(ev.task_id) + " already exists";
  if (s.pools.count(ev.pool) == 0)
    return "unknown pool " + quote(ev.pool);
  task_info t;
  t.id = ev.task_id;
  t.task_type = ev.task_type;
  t.owner = ev.owner;
  t.description = ev.description;
  t.config = ev.config;
  t.pool = ev.pool;
  t.slots = ev.slots;
  t.priority = ev.priority;
  t.weight = ev.weight;
  t.workspace_id = ev.workspace_id;
  t.launched_at_us = ev.at_us;
  t.forked_from = ev.forked_from;
  t.tensorboard = ev.tensorboard;
  t.parent_id = ev.parent_id;
  t.no_pause = ev.no_pause;
  t.pauses_with_parent = ev.pauses_with_parent;
  s.tasks.emplace(t.id, std::move(t));
  return {};
}

verdict apply_one(cluster_state& s, const task_placed& ev) {
  task_info* t = nullptr;
  if (auto why = find_task_of(s, ev.task_id, t); !why.empty())
    return why;
  if (t->state != task_state::queued)
    return task_name(t->id) + " is " + to_string(t->state) + ", not queued";
  if (auto why = check_task_placement(s, *t, ev); !why.empty())
    return why;
  auto next = t->id + "." + std::to_string(t->allocations + 1);
  if (ev.allocation_id != next)
    return task_name(t->id) + "'s next allocation is " + quote(next) + ", not "
           + quote(ev.allocation_id);
  auto& agent = s.agents.at(ev.agent_id);
  for (auto slot : ev.slots)
    agent.slots[static_cast<size_t>(slot)] = ev.allocation_id;
  if (!ev.slots.empty())
    agent.idle_since_us.reset();
  t->state = task_state::starting;
  t->allocations += 1;
  t->allocation_id = ev.allocation_id;
  t->agent_id = ev.agent_id;
  t->agent_slots = ev.slots;
  t->placed_at_us = ev.at_us;
  return {};
}

verdict apply_one(cluster_state& s, const task_running& ev) {
  task_info* t = nullptr;
  if (auto why = find_holding_task(s, ev.task_id, ev.allocation_id, t);
      !why.empty())
    return why;
  if (t->state != task_state::starting)
    return task_name(t->id) + " is " + to_string(t->state) + ", not starting";
  t->state = task_state::running;
  t->running_at_us = ev.at_us;
  return {};
}

verdict apply_one(cluster_state& s, const task_ready& ev) {
  task_info* t = nullptr;
  if (auto why = find_holding_task(s, ev.task_id, ev.allocation_id, t);
      !why.empty())
    return why;
  if (t->ready)
    return task_name(t->id) + " is already ready";
  t->ready = true;
  t->proxy_host = ev.proxy_host;
  t->proxy_port = ev.proxy_port;
  return {};
}

verdict apply_one(cluster_state& s, const task_kill_requested& ev) {
  task_info* t = nullptr;
  if (auto why = find_holding_task(s, ev.task_id, ev.allocation_id, t);
      !why.empty())
    return why;
  if (t->state == task_state::terminating)
    return task_name(t->id) + " was already asked to stop";
  if (ev.pause && t->task_type != "GENERIC")
    return task_name(t->id) + " is a " + t->task_type
           + ", and only a generic task pauses";
  t->state = task_state::terminating;
  t->kill_requested_by = ev.username;
  t->kill_reason = ev.reason;
  t->pausing = ev.pause;
  return {};
}

verdict apply_one(cluster_state& s, const task_exited& ev) {
  task_info* t = nullptr;
  if (auto why = find_task_of(s, ev.task_id, t); !why.empty())
    return why;
  if (t->state == task_state::terminated)
    return task_name(t->id) + " has already exited";
  if (ev.allocation_id.empty()) {
    // Only a task that never ran ends without its allocation: killed (or
    // paused) while queued.
    if (t->state != task_state::queued
        || (ev.reason != "killed" && ev.reason != "paused"))
      return task_name(t->id) + " is " + to_string(t->state)
             + ": only a queued task is killed without its allocation";
  } else if (!holds_allocation(*t) || t->allocation_id != ev.allocation_id) {
    return task_name(t->id) + " does not hold allocation "
           + quote(ev.allocation_id);
  } else if (ev.reason == "paused" && !t->pausing) {
    return task_name(t->id) + " was not asked to pause";
  }
  if (ev.reason == "paused" && t->task_type != "GENERIC")
    return task_name(t->id) + " is a " + t->task_type
           + ", and only a generic task pauses";
  t->pausing = false;
  end_task_allocation(s, *t, ev.reason, ev.exit_code, ev.message, ev.at_us);
  return {};
}

verdict apply_one(cluster_state& s, const task_priority_set& ev) {
  task_info* t = nullptr;
  if (auto why = find_task_of(s, ev.task_id, t); !why.empty())
    return why;
  if (t->state == task_state::terminated)
    return task_name(t->id) + " has exited";
  t->priority = ev.priority;
  return {};
}

verdict apply_one(cluster_state& s, const task_forgotten& ev) {
  task_info* t = nullptr;
  if (auto why = find_task_of(s, ev.task_id, t); !why.empty())
    return why;
  if (t->state != task_state::terminated)
    return task_name(t->id) + " is " + to_string(t->state) + ", not terminated";
  s.tasks.erase(ev.task_id);
  return {};
}

verdict apply_one(cluster_state& s, const task_unpaused& ev) {
  task_info* t = nullptr;
  if (auto why = find_task_of(s, ev.task_id, t); !why.empty())
    return why;
  if (!is_paused(*t))
    return task_name(t->id) + " is not paused";
  // Queued again; its last allocation's traces go (the next is counted).
  t->state = task_state::queued;
  t->allocation_id.clear();
  t->agent_id.clear();
  t->ready = false;
  t->proxy_host.clear();
  t->proxy_port = 0;
  t->kill_requested_by.clear();
  t->kill_reason.clear();
  t->placed_at_us = 0;
  t->running_at_us = 0;
  t->ended_at_us = 0;
  t->exit_reason.clear();
  t->exit_code = 0;
  t->exit_message.clear();
  return {};
}

} // namespace det::state::detail
