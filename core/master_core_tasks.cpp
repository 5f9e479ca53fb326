// master_core: tasks (commands, notebooks, shells, TensorBoards, generic
// tasks; messages/events_tasks.hpp). A task is one job with one allocation
// "<task id>.1" on one agent. Tasks holding slots enter the pool's
// scheduling pass beside trials (pool_snapshot_of) and are never
// preempted; zero-slot tasks (TensorBoards) take no slot and are placed on
// the first schedulable agent of their pool. The agent's reports of a
// task's allocation come through allocation_running / allocation_exited
// like a trial's.

#include "core/master_core.hpp"

#include "state/queries.hpp"
#include "state/records_queries.hpp"

#include <set>

namespace det {

namespace {

/// The id the scheduler knows a task's allocation by (trials are numbers).
constexpr const char* task_prefix = "task:";

bool is_task_entry(const std::string& id) {
  return id.rfind(task_prefix, 0) == 0;
}

} // namespace

std::string scheduler_id_of_task(const std::string& task_id) {
  return task_prefix + task_id;
}

namespace {

decision unknown_task(decision& d, const std::string& id) {
  return with_refusal(d, errc::not_found, "task not found: " + id);
}

} // namespace

decision master_core::launch_task(const task_launch& req, int64_t now_us) {
  decision d;
  if (state::find_pool(st_, req.pool) == nullptr)
    return with_refusal(d, errc::invalid_argument,
                        "resources.resource_pool: pool '" + req.pool
                            + "' does not exist");
  auto ws = state::find_workspace(st_, req.workspace_id);
  if (!ws || ws->archived)
    return with_refusal(d, errc::not_found,
                        "workspace not found: "
                            + std::to_string(req.workspace_id));
  if (st_.tasks.count(req.task_id) != 0)
    return with_refusal(d, errc::conflict,
                        "task '" + req.task_id + "' already exists");
  if (!req.parent_id.empty()) {
    auto p = st_.tasks.find(req.parent_id);
    if (p == st_.tasks.end() || p->second.task_type != "GENERIC")
      return with_refusal(d, errc::not_found,
                          "parentId: task not found: " + req.parent_id);
  }
  task_launched ev;
  ev.task_id = req.task_id;
  ev.task_type = req.task_type;
  ev.owner = req.owner;
  ev.description = req.description;
  ev.config = req.config;
  ev.pool = req.pool;
  ev.slots = req.slots;
  ev.priority = req.priority;
  ev.weight = req.weight;
  ev.workspace_id = req.workspace_id;
  ev.at_us = now_us;
  ev.forked_from = req.forked_from;
  ev.tensorboard = req.tensorboard;
  ev.parent_id = req.parent_id;
  ev.no_pause = req.no_pause;
  ev.pauses_with_parent = req.pauses_with_parent;
  if (!emit(d, ev))
    return d;
  d.reply = {{"task_id", req.task_id}};
  schedule_pool(d, req.pool, now_us);
  return d;
}

decision master_core::kill_task(const std::string& id,
                                const std::string& username,
                                const std::string& reason, int64_t now_us) {
  decision d;
  auto i = st_.tasks.find(id);
  if (i == st_.tasks.end())
    return unknown_task(d, id);
  const auto& t = i->second;
  d.reply = {{"task_id", id}};
  if (state::is_paused(t)) { // canceled: queued again, then killed there
    if (emit(d, task_unpaused{id, username, now_us}))
      emit(d,
           task_exited{id, "", "killed", 0, "killed: by " + username, now_us});
    return d;
  }
  switch (t.state) {
  case state::task_state::terminated:
  case state::task_state::terminating:
    return d; // as upstream: killing what is ending is a no-op
  case state::task_state::queued:
    emit(d, task_exited{id, "", "killed", 0, "killed: by " + username, now_us});
    return d;
  default:
    break;
  }
  auto agent = t.agent_id;
  auto alloc = t.allocation_id;
  if (emit(d, task_kill_requested{id, alloc, username,
                                  reason.empty() ? "killed by user" : reason,
                                  now_us}))
    d.effects.push_back(kill_order{agent, alloc});
  return d;
}

decision master_core::kill_task_tree(const std::string& id,
                                     const std::string& username,
                                     const std::string& reason, bool from_root,
                                     int64_t now_us) {
  decision d;
  auto i = st_.tasks.find(id);
  if (i == st_.tasks.end())
    return unknown_task(d, id);
  // As upstream: a generic task that completed or was canceled is not
  // canceled (again); the caller hears so instead of a silent no-op.
  if (const auto& t = i->second;
      t.task_type == "GENERIC" && t.state == state::task_state::terminated
      && (t.exit_reason == "completed" || t.exit_reason == "killed"))
    return with_refusal(
        d, errc::failed_precondition,
        "cannot cancel task " + id + " as it is in state '"
            + (t.exit_reason == "completed" ? "COMPLETED" : "CANCELED") + "'");
  auto root = from_root ? state::task_root(st_, id) : id;
  for (const auto& each : state::task_subtree(st_, root))
    absorb(d, kill_task(each, username, reason, now_us));
  d.reply = {{"task_id", id}};
  return d;
}

bool master_core::pause_one(decision& d, const state::task_info& t,
                            const std::string& username, int64_t now_us) {
  if (state::is_paused(t) || t.pausing)
    return true;
  switch (t.state) {
  case state::task_state::terminated:
    with_refusal(d, errc::failed_precondition,
                 "task " + t.id + " has ended (" + t.exit_reason
                     + "): it cannot pause");
    return false;
  case state::task_state::terminating:
    with_refusal(d, errc::failed_precondition,
                 "task " + t.id + " is being killed: it cannot pause");
    return false;
  case state::task_state::queued:
    return emit(
        d, task_exited{t.id, "", "paused", 0, "paused by " + username, now_us});
  default:
    break;
  }
  task_kill_requested ev{t.id, t.allocation_id, username, "paused", now_us};
  ev.pause = true;
  auto agent = t.agent_id;
  auto alloc = t.allocation_id;
  if (!emit(d, ev))
    return false;
  d.effects.push_back(kill_order{agent, alloc});
  return true;
}

decision master_core::pause_task(const std::string& id,
                                 const std::string& username, int64_t now_us) {
  decision d;
  auto i = st_.tasks.find(id);
  if (i == st_.tasks.end())
    return unknown_task(d, id);
  if (i->second.task_type != "GENERIC")
    return with_refusal(d, errc::invalid_argument,
                        "task " + id + " is a " + i->second.task_type
                            + ": only a generic task pauses");
  if (i->second.no_pause)
    return with_refusal(d, errc::failed_precondition,
                        "task " + id
                            + " was created with noPause: it cannot pause");
  if (!pause_one(d, i->second, username, now_us))
    return d;
  // Its children that asked to pause with it (noPause: false), and
  // theirs; one that ended or is ending is left as it is.
  for (const auto& each : state::task_subtree(st_, id)) {
    auto c = st_.tasks.find(each);
    if (each == id || c == st_.tasks.end() || !c->second.pauses_with_parent
        || c->second.state == state::task_state::terminated
        || c->second.state == state::task_state::terminating)
      continue;
    if (!pause_one(d, c->second, username, now_us))
      return d;
  }
  d.reply = {{"task_id", id}};
  return d;
}

decision master_core::unpause_task(const std::string& id,
                                   const std::string& username,
                                   int64_t now_us) {
  decision d;
  auto i = st_.tasks.find(id);
  if (i == st_.tasks.end())
    return unknown_task(d, id);
  if (!state::is_paused(i->second))
    return with_refusal(d, errc::failed_precondition,
                        "task " + id + " is not paused");
  // It and its paused children, each queued for its next allocation.
  std::set<std::string> pools;
  for (const auto& each : state::task_subtree(st_, id)) {
    auto c = st_.tasks.find(each);
    if (c == st_.tasks.end() || !state::is_paused(c->second))
      continue;
    auto pool = c->second.pool;
    if (!emit(d, task_unpaused{each, username, now_us}))
      return d;
    pools.insert(pool);
  }
  for (const auto& pool : pools)
    schedule_pool(d, pool, now_us);
  d.reply = {{"task_id", id}};
  return d;
}

decision master_core::task_became_ready(const std::string& allocation_id,
                                        const std::string& proxy_host,
                                        int32_t proxy_port, int64_t now_us) {
  decision d;
  auto t = state::task_of_allocation(st_, allocation_id);
  if (t == nullptr)
    return with_refusal(d, errc::not_found,
                        "allocation not found: " + allocation_id);
  if (!t->ready)
    emit(d, task_ready{t->id, allocation_id, now_us, proxy_host, proxy_port});
  return d;
}

decision master_core::set_task_priority(const std::string& id, int32_t priority,
                                        const std::string& username,
                                        int64_t now_us) {
  decision d;
  auto i = st_.tasks.find(id);
  if (i == st_.tasks.end())
    return unknown_task(d, id);
  if (priority < 1 || priority > 99)
    return with_refusal(d, errc::invalid_argument,
                        "priority: must be between 1 and 99");
  if (i->second.state == state::task_state::terminated)
    return with_refusal(d, errc::failed_precondition,
                        "task " + id + " has exited");
  auto pool = i->second.pool;
  if (emit(d, task_priority_set{id, priority, username, now_us}))
    schedule_pool(d, pool, now_us);
  return d;
}

decision master_core::forget_tasks(int64_t older_than_us, int64_t now_us) {
  decision d;
  forget_ended_before(d, older_than_us, now_us);
  return d;
}

void master_core::sweep_old_tasks(decision& d, int64_t now_us) {
  forget_ended_before(d, now_us - cfg_.task_retention_us, now_us);
}

void master_core::forget_ended_before(decision& d, int64_t older_than_us,
                                      int64_t now_us) {
  std::vector<std::string> old;
  for (const auto& [id, t] : st_.tasks)
    if (t.state == state::task_state::terminated && !state::is_paused(t)
        && t.ended_at_us <= older_than_us)
      old.push_back(id);
  for (const auto& id : old)
    emit(d, task_forgotten{id, now_us});
}

bool master_core::task_running_reported(decision& d, const std::string& alloc,
                                        int64_t now_us) {
  auto t = state::task_of_allocation(st_, alloc);
  if (t == nullptr)
    return false;
  if (t->state == state::task_state::starting)
    emit(d, task_running{t->id, alloc, now_us});
  return true;
}

bool master_core::task_exit_reported(decision& d, const std::string& alloc,
                                     int32_t exit_code, int64_t now_us) {
  auto t = state::task_of_allocation(st_, alloc);
  if (t == nullptr)
    return false;
  task_exited ev;
  ev.task_id = t->id;
  ev.allocation_id = alloc;
  ev.exit_code = exit_code;
  ev.at_us = now_us;
  if (t->state == state::task_state::terminating && t->pausing) {
    ev.reason = "paused";
    ev.message = "paused by " + t->kill_requested_by;
  } else if (t->state == state::task_state::terminating) {
    ev.reason = "killed";
    ev.message =
        "killed: "
        + (t->kill_reason.empty() ? std::string{"by user"} : t->kill_reason);
  } else if (exit_code == 0) {
    ev.reason = "completed";
    ev.message = "allocation exited successfully";
  } else {
    ev.reason = "failed";
    ev.message = "resources failed with non-zero exit code: "
                 + std::to_string(exit_code);
  }
  auto pool = t->pool;
  if (emit(d, ev))
    schedule_pool(d, pool, now_us);
  return true;
}

void master_core::task_start_effect(decision& d, const std::string& task_id) {
  auto i = st_.tasks.find(task_id);
  if (i == st_.tasks.end() || !state::holds_allocation(i->second))
    return;
  const auto& t = i->second;
  task_start_order o;
  o.agent_id = t.agent_id;
  o.task_id = t.id;
  o.allocation_id = t.allocation_id;
  o.task_type = t.task_type;
  o.slots = t.agent_slots;
  o.config = t.config;
  o.owner = t.owner;
  o.tensorboard = t.tensorboard;
  d.effects.push_back(std::move(o));
}

void master_core::add_tasks_to(policy::pool_snapshot& snap,
                               const std::string& pool) const {
  for (const auto& [id, t] : st_.tasks) {
    if (t.pool != pool || t.slots == 0)
      continue;
    if (t.state == state::task_state::queued) {
      policy::pending_allocation p;
      p.id = scheduler_id_of_task(id);
      p.experiment_id = p.id;
      p.slots = t.slots;
      p.priority = t.priority;
      p.order = static_cast<uint64_t>(t.launched_at_us);
      p.weight = t.weight;
      snap.pending.push_back(std::move(p));
    } else if (state::holds_allocation(t)) {
      policy::running_allocation r;
      r.id = scheduler_id_of_task(id);
      r.experiment_id = r.id;
      r.priority = t.priority;
      r.order = static_cast<uint64_t>(t.launched_at_us);
      r.weight = t.weight;
      r.preemptible = false;
      policy::agent_slots as{t.agent_id, {}};
      for (auto s : t.agent_slots)
        as.slots.push_back(static_cast<int>(s));
      r.resources.push_back(std::move(as));
      snap.running.push_back(std::move(r));
    }
  }
}

bool master_core::place_task(decision& d, const policy::placement& p,
                             int64_t now_us) {
  if (!is_task_entry(p.allocation_id))
    return false;
  auto id = p.allocation_id.substr(std::char_traits<char>::length(task_prefix));
  auto i = st_.tasks.find(id);
  // A task is one agent's: a placement over several is left to wait.
  if (i == st_.tasks.end() || i->second.state != state::task_state::queued
      || p.resources.size() != 1)
    return true;
  task_placed ev;
  ev.task_id = id;
  ev.allocation_id = state::next_allocation_id(i->second);
  ev.agent_id = p.resources.front().agent_id;
  for (auto s : p.resources.front().slots)
    ev.slots.push_back(s);
  ev.at_us = now_us;
  // A pass computed on an older snapshot may be stale (slot taken, agent
  // gone): skipped, the next pass sees the task again.
  auto a = state::find_agent(st_, ev.agent_id);
  if (a == nullptr || !state::schedulable(*a)
      || state::on_terminating_instance(st_, *a)
      || static_cast<int64_t>(ev.slots.size()) != i->second.slots)
    return true;
  for (auto s : ev.slots)
    if (s < 0 || s >= state::slot_capacity(*a)
        || !a->slots[static_cast<size_t>(s)].empty())
      return true;
  if (emit(d, ev))
    task_start_effect(d, id);
  return true;
}

bool master_core::has_queued_tasks(const std::string& pool) const {
  for (const auto& [id, t] : st_.tasks)
    if (t.pool == pool && t.slots > 0 && t.state == state::task_state::queued)
      return true;
  return false;
}

void master_core::reconcile_tasks_on(
    decision& d, const std::string& agent_id,
    const std::vector<reported_allocation>& reported, int64_t now_us) {
  std::vector<std::string> lost;
  for (const auto& [id, t] : st_.tasks) {
    if (!state::holds_allocation(t) || t.agent_id != agent_id)
      continue;
    bool known = false;
    for (const auto& r : reported)
      known = known || r.allocation_id == t.allocation_id;
    if (known)
      continue;
    // Placed but never reported running: the order never reached the
    // agent. Send it again; otherwise the agent lost the task (it
    // restarted).
    if (t.state == state::task_state::starting)
      task_start_effect(d, id);
    else
      lost.push_back(id);
  }
  for (const auto& id : lost) {
    auto alloc = st_.tasks.at(id).allocation_id;
    emit(d, task_exited{id, alloc, "agent_lost", -1,
                        "agent lost: it no longer runs the task", now_us});
  }
}

void master_core::place_zero_slot_tasks(decision& d, const std::string& pool,
                                        int64_t now_us) {
  std::vector<std::string> queued;
  for (const auto& [id, t] : st_.tasks)
    if (t.pool == pool && t.slots == 0 && t.state == state::task_state::queued)
      queued.push_back(id);
  if (queued.empty())
    return;
  const state::agent_info* target = nullptr;
  for (auto a : state::agents_of_pool(st_, pool))
    if (state::schedulable(*a) && !state::on_terminating_instance(st_, *a)) {
      target = a;
      break;
    }
  if (target == nullptr)
    return;
  auto agent = target->id;
  for (const auto& id : queued)
    if (emit(d, task_placed{id,
                            state::next_allocation_id(st_.tasks.at(id)),
                            agent,
                            {},
                            now_us}))
      task_start_effect(d, id);
}

decision master_core::on(const task_launch& c, int64_t now_us) {
  return launch_task(c, now_us);
}

decision master_core::on(const task_kill& c, int64_t now_us) {
  return kill_task_tree(c.task_id, c.username, c.reason, c.from_root, now_us);
}

decision master_core::on(const task_pause& c, int64_t now_us) {
  return pause_task(c.task_id, c.username, now_us);
}

decision master_core::on(const task_unpause& c, int64_t now_us) {
  return unpause_task(c.task_id, c.username, now_us);
}

decision master_core::on(const task_ready_report& c, int64_t now_us) {
  return task_became_ready(c.allocation_id, c.proxy_host, c.proxy_port, now_us);
}

decision master_core::on(const task_priority_change& c, int64_t now_us) {
  return set_task_priority(c.task_id, c.priority, c.username, now_us);
}

} // namespace det
