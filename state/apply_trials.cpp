// apply() for trials. A trial is created pending; placed on exactly its
// experiment's slots_per_trial free slots of connected, enabled agents of
// the experiment's pool (assigned); running; possibly asked to checkpoint
// and exit (checkpointing); and its allocation ends with trial_exited (or
// with its agent, agent_lost). completed and killed exits end the trial;
// other exits leave it `exited` until its actor restarts it (pending again)
// or errors it. Only "failed" exits count against max_restarts.

#include "state/apply_detail.hpp"
#include "state/metric_summary.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"

#include <algorithm>
#include <set>

namespace det::state::detail {

namespace {

std::string trial_name(int64_t id) {
  return "trial " + std::to_string(id);
}

/// The trial, or a refusal.
verdict find(cluster_state& s, int64_t id, trial_info*& out) {
  auto i = s.trials.find(id);
  if (i == s.trials.end())
    return "unknown " + trial_name(id);
  out = &i->second;
  return {};
}

/// A group upstream's profiler reports system samples in.
bool is_profiling_group(const std::string& group) {
  return group == "gpu" || group == "cpu" || group == "memory"
         || group == "disk" || group == "network";
}

/// The trial holding allocation `alloc`, or a refusal.
verdict find_holding(cluster_state& s, int64_t id, const std::string& alloc,
                     trial_info*& out) {
  if (auto why = find(s, id, out); !why.empty())
    return why;
  // An unmanaged trial reports with its user's session, never an
  // allocation: whatever state its client set.
  if (alloc.empty() && s.experiments.at(out->experiment_id).unmanaged)
    return {};
  if (!out->allocation)
    return trial_name(id) + " is " + to_string(out->status)
           + " and holds no allocation";
  if (out->allocation->id != alloc)
    return trial_name(id) + " holds allocation " + quote(out->allocation->id)
           + ", not " + quote(alloc);
  return {};
}

/// Refuses the master's trial lifecycle for a trial of an unmanaged
/// experiment: its client sets its state (apply_unmanaged.cpp).
verdict managed(const experiment_info& e) {
  if (e.unmanaged)
    return "experiment " + std::to_string(e.id)
           + " is unmanaged: its trials set their own states";
  return {};
}

verdict check_placement(const cluster_state& s, const trial_info& t,
                        const experiment_info& e, const trial_placed& ev) {
  if (auto why = managed(e); !why.empty())
    return why;
  if (t.status != trial_status::pending)
    return trial_name(t.id) + " is " + to_string(t.status) + ", not pending";
  if (e.status != experiment_status::active)
    return "experiment " + std::to_string(e.id) + " is " + to_string(e.status);
  if (ev.allocation_id != next_allocation_id(t))
    return "allocation id " + quote(ev.allocation_id) + " should be "
           + quote(next_allocation_id(t));
  if (s.allocations.count(ev.allocation_id) != 0)
    return "allocation " + quote(ev.allocation_id) + " already exists";
  int64_t total = 0;
  std::set<std::string> seen_agents;
  for (const auto& a : ev.assignments) {
    auto i = s.agents.find(a.agent_id);
    if (i == s.agents.end())
      return "unknown agent " + quote(a.agent_id);
    const auto& agent = i->second;
    if (!seen_agents.insert(a.agent_id).second)
      return "agent " + quote(a.agent_id) + " is assigned twice";
    if (!schedulable(agent))
      return "agent " + quote(a.agent_id) + " takes no new work";
    if (agent.pool != e.pool)
      return "agent " + quote(a.agent_id) + " is in pool " + quote(agent.pool)
             + ", not " + quote(e.pool);
    if (a.slots.empty())
      return "assignment on agent " + quote(a.agent_id) + " has no slots";
    std::set<int64_t> seen_slots;
    for (auto slot : a.slots) {
      if (slot < 0 || slot >= static_cast<int64_t>(agent.slots.size()))
        return "agent " + quote(a.agent_id) + " has no slot "
               + std::to_string(slot);
      if (slot >= slot_capacity(agent))
        return "slot " + std::to_string(slot) + " of agent " + quote(a.agent_id)
               + " is past its capacity and takes no new work";
      if (!seen_slots.insert(slot).second)
        return "slot " + std::to_string(slot) + " of agent " + quote(a.agent_id)
               + " is assigned twice";
      if (!agent.slots[static_cast<size_t>(slot)].empty())
        return "slot " + std::to_string(slot) + " of agent " + quote(a.agent_id)
               + " is used by " + quote(agent.slots[static_cast<size_t>(slot)]);
    }
    total += static_cast<int64_t>(a.slots.size());
  }
  if (total != e.slots_per_trial)
    return "placement has " + std::to_string(total) + " slots, the trial needs "
           + std::to_string(e.slots_per_trial);
  return {};
}

/// The searcher metric of `e` and whether smaller is better.
std::pair<std::string, bool> searcher_metric(const experiment_info& e) {
  auto searcher = e.config.find("searcher");
  if (searcher == e.config.end() || !searcher->is_object())
    return {"", true};
  auto metric = searcher->find("metric");
  auto smaller = searcher->find("smaller_is_better");
  return {metric != searcher->end() && metric->is_string()
              ? metric->get<std::string>()
              : "",
          smaller != searcher->end() && smaller->is_boolean()
              ? smaller->get<bool>()
              : true};
}

} // namespace

void queue_searcher_input(cluster_state& s, const trial_info& t,
                          searcher_input in) {
  auto& e = s.experiments.at(t.experiment_id);
  if (is_terminal(e.status) || e.unmanaged)
    return;
  in.seq = ++e.searcher_inputs_queued;
  in.trial_id = t.id;
  in.request_id = t.request_id;
  e.searcher_inbox.push_back(std::move(in));
}

namespace {

void queue_trial_end(cluster_state& s, const trial_info& t) {
  searcher_input in;
  in.kind = "ended";
  in.trial_status = to_string(t.status);
  in.steps = t.metrics.steps_completed;
  queue_searcher_input(s, t, std::move(in));
}

} // namespace

void end_allocation(cluster_state& s, trial_info& t, const std::string& reason,
                    int32_t exit_code, int64_t at_us) {
  const auto& alloc = *t.allocation;
  for (const auto& a : alloc.assignments) {
    auto i = s.agents.find(a.agent_id);
    if (i == s.agents.end())
      continue;
    auto& agent = i->second;
    for (auto& used_by : agent.slots)
      if (used_by == alloc.id)
        used_by.clear();
    trim_retired_slots(agent);
    if (used_slots(agent) == 0 && !agent.idle_since_us)
      agent.idle_since_us = at_us;
  }
  if (auto h = s.allocation_history.find(alloc.id);
      h != s.allocation_history.end())
    h->second.ended_at_us = at_us;
  s.allocations.erase(alloc.id);
  t.allocation.reset();
  t.last_exit_reason = reason;
  t.last_exit_code = exit_code;
  if (reason == "completed") {
    t.status = trial_status::completed;
  } else if (reason == "killed") {
    t.status = trial_status::canceled;
    t.end_reason = "killed";
  } else {
    t.status = trial_status::exited;
    if (reason == "failed")
      ++t.restarts;
  }
  if (is_terminal(t.status)) {
    t.ended_at_us = at_us;
    queue_trial_end(s, t);
  }
}

verdict apply_one(cluster_state& s, const trial_created& ev) {
  if (ev.trial_id <= 0)
    return "trial_id must be positive";
  if (s.trials.count(ev.trial_id) != 0)
    return trial_name(ev.trial_id) + " already exists";
  auto e = s.experiments.find(ev.experiment_id);
  if (e == s.experiments.end())
    return "unknown experiment " + std::to_string(ev.experiment_id);
  if (e->second.status != experiment_status::active
      && e->second.status != experiment_status::paused)
    return "experiment " + std::to_string(ev.experiment_id) + " is "
           + to_string(e->second.status);
  if (auto why = managed(e->second); !why.empty())
    return why;
  trial_info t;
  t.id = ev.trial_id;
  t.experiment_id = ev.experiment_id;
  t.request_id = ev.request_id;
  t.hparams = ev.hparams;
  t.created_at_us = ev.at_us;
  s.last_trial_id = std::max(s.last_trial_id, t.id);
  s.trials.emplace(t.id, std::move(t));
  e->second.trial_ids.push_back(ev.trial_id);
  return {};
}

namespace {

/// What resource accounting keeps of a placement (allocation_record).
allocation_record accounting_record(const cluster_state& s, const trial_info& t,
                                    const experiment_info& e,
                                    const trial_placed& ev) {
  allocation_record r;
  r.id = ev.allocation_id;
  r.trial_id = t.id;
  r.experiment_id = e.id;
  r.owner = e.owner;
  if (auto p = find_project(s, e.project_id))
    if (auto w = find_workspace(s, p->workspace_id))
      r.workspace_name = w->name;
  r.pool = e.pool;
  if (auto l = e.config.find("labels"); l != e.config.end() && l->is_array())
    for (const auto& label : *l)
      if (label.is_string())
        r.labels.push_back(label.get<std::string>());
  for (const auto& a : ev.assignments)
    r.slots += static_cast<int64_t>(a.slots.size());
  r.started_at_us = ev.at_us;
  return r;
}

} // namespace

verdict apply_one(cluster_state& s, const trial_placed& ev) {
  trial_info* t = nullptr;
  if (auto why = find(s, ev.trial_id, t); !why.empty())
    return why;
  const auto& e = s.experiments.at(t->experiment_id);
  if (t->restarts > e.max_restarts)
    return trial_name(t->id) + " has exhausted its restarts";
  if (auto why = check_placement(s, *t, e, ev); !why.empty())
    return why;
  for (const auto& a : ev.assignments) {
    auto& agent = s.agents.at(a.agent_id);
    for (auto slot : a.slots)
      agent.slots[static_cast<size_t>(slot)] = ev.allocation_id;
    agent.idle_since_us.reset();
  }
  allocation_info alloc;
  alloc.id = ev.allocation_id;
  alloc.assignments = ev.assignments;
  alloc.placed_at_us = ev.at_us;
  t->allocation = std::move(alloc);
  t->status = trial_status::assigned;
  ++t->runs;
  s.allocations.emplace(ev.allocation_id, t->id);
  s.allocation_history[ev.allocation_id] = accounting_record(s, *t, e, ev);
  return {};
}

verdict apply_one(cluster_state& s, const trial_running& ev) {
  trial_info* t = nullptr;
  if (auto why = find_holding(s, ev.trial_id, ev.allocation_id, t);
      !why.empty())
    return why;
  if (t->status != trial_status::assigned)
    return trial_name(t->id) + " is " + to_string(t->status) + ", not assigned";
  t->status = trial_status::running;
  t->allocation->running_at_us = ev.at_us;
  return {};
}

verdict apply_one(cluster_state& s, const trial_preemption_requested& ev) {
  trial_info* t = nullptr;
  if (auto why = find_holding(s, ev.trial_id, ev.allocation_id, t);
      !why.empty())
    return why;
  // Asked to stop once; a kill may follow a gentler request (a pause, the
  // scheduler's preemption) and then names why the allocation ends.
  if (t->allocation->preemption_requested
      && (ev.reason != "killed"
          || t->allocation->preemption_reason == "killed"))
    return trial_name(t->id) + " was already asked to stop";
  t->allocation->preemption_requested = true;
  t->allocation->preemption_reason = ev.reason;
  t->allocation->preemption_requested_at_us = ev.at_us;
  if (t->status == trial_status::running)
    t->status = trial_status::checkpointing;
  return {};
}

verdict apply_one(cluster_state& s, const trial_checkpointed& ev) {
  trial_info* t = nullptr;
  if (auto why = find(s, ev.trial_id, t); !why.empty())
    return why;
  // allocation_id is optional here: empty means "the current one".
  auto alloc = ev.allocation_id.empty() && t->allocation ? t->allocation->id
                                                         : ev.allocation_id;
  if (auto why = find_holding(s, ev.trial_id, alloc, t); !why.empty())
    return why;
  if (t->latest_checkpoint
      && ev.steps_completed < t->latest_checkpoint->steps_completed)
    return "checkpoint at step " + std::to_string(ev.steps_completed)
           + " is older than the latest at step "
           + std::to_string(t->latest_checkpoint->steps_completed);
  checkpoint_info ck;
  ck.uuid = ev.uuid;
  ck.steps_completed = ev.steps_completed;
  ck.metadata = ev.metadata;
  ck.at_us = ev.at_us;
  t->latest_checkpoint = std::move(ck);
  // The validation reported at this step, when it came first.
  const auto& m = t->metrics;
  auto name = searcher_metric(s.experiments.at(t->experiment_id)).first;
  if (m.latest_validation.is_object()
      && m.steps_completed == ev.steps_completed)
    t->latest_checkpoint->validation_metrics = m.latest_validation;
  if (m.latest_validation.is_object()
      && m.steps_completed == ev.steps_completed)
    if (auto v = m.latest_validation.find(name);
        !name.empty() && v != m.latest_validation.end() && v->is_number())
      t->latest_checkpoint->searcher_metric = v->get<double>();
  t->checkpoints.push_back(*t->latest_checkpoint);
  return {};
}

namespace {

// `owned`, when set, is ev.metrics, which the state may keep instead of a
// copy once nothing else reads it.
verdict apply_metrics(cluster_state& s, const trial_metrics_reported& ev,
                      nlohmann::json* owned) {
  trial_info* t = nullptr;
  if (ev.allocation_id.empty()) {
    if (auto why = find(s, ev.trial_id, t); !why.empty())
      return why;
    // A user's report for a managed trial that is not running: kept and
    // summarized, never progress or a searcher's input.
    if (!s.experiments.at(t->experiment_id).unmanaged) {
      if (t->allocation)
        return trial_name(t->id) + " holds allocation "
               + quote(t->allocation->id) + ": its metrics come from it";
      if (!is_profiling_group(ev.kind)
          && (t->metrics.summaries.contains(ev.kind)
              || t->metrics.summaries.size() < max_summarized_groups))
        fold_metric_summary(t->metrics.summaries[ev.kind], ev.metrics);
      return {};
    }
  }
  if (auto why = find_holding(s, ev.trial_id, ev.allocation_id, t);
      !why.empty())
    return why;
  auto& m = t->metrics;
  // Upstream's profiler groups ("gpu", "cpu", ...) are samples of the
  // machine, not progress: kept in the log only, as upstream keeps them.
  if (is_profiling_group(ev.kind))
    return {};
  m.steps_completed = std::max(m.steps_completed, ev.steps_completed);
  if (m.summaries.contains(ev.kind)
      || m.summaries.size() < max_summarized_groups)
    fold_metric_summary(m.summaries[ev.kind], ev.metrics);
  if (ev.kind == "training") {
    ++m.training_reports;
    if (owned != nullptr)
      m.latest_training = std::move(*owned);
    else
      m.latest_training = ev.metrics;
    return {};
  }
  // Any other group is kept as reported: only validation feeds the
  // searcher and the best metric.
  if (ev.kind != "validation")
    return {};
  ++m.validation_reports;
  m.latest_validation = ev.metrics;
  searcher_input in;
  in.kind = "validation";
  in.steps = ev.steps_completed;
  in.metrics = ev.metrics;
  queue_searcher_input(s, *t, std::move(in));
  // A checkpoint saved at this step before its validation came in.
  for (auto& c : t->checkpoints)
    if (c.steps_completed == ev.steps_completed)
      c.validation_metrics = ev.metrics;
  if (t->latest_checkpoint
      && t->latest_checkpoint->steps_completed == ev.steps_completed)
    t->latest_checkpoint->validation_metrics = ev.metrics;
  auto [name, smaller] = searcher_metric(s.experiments.at(t->experiment_id));
  auto value = ev.metrics.find(name);
  if (name.empty() || value == ev.metrics.end() || !value->is_number())
    return {};
  auto v = value->get<double>();
  // A checkpoint saved at this step before its validation came in.
  for (auto& c : t->checkpoints)
    if (c.steps_completed == ev.steps_completed)
      c.searcher_metric = v;
  if (t->latest_checkpoint
      && t->latest_checkpoint->steps_completed == ev.steps_completed)
    t->latest_checkpoint->searcher_metric = v;
  if (!m.best_validation
      || (smaller ? v < *m.best_validation : v > *m.best_validation)) {
    m.best_validation = v;
    m.best_validation_steps = ev.steps_completed;
  }
  return {};
}

} // namespace

verdict apply_one(cluster_state& s, const trial_metrics_reported& ev) {
  return apply_metrics(s, ev, nullptr);
}

verdict apply_one(cluster_state& s, trial_metrics_reported&& ev) {
  return apply_metrics(s, ev, &ev.metrics);
}

verdict apply_one(cluster_state& s, const trial_exited& ev) {
  trial_info* t = nullptr;
  if (auto why = find_holding(s, ev.trial_id, ev.allocation_id, t);
      !why.empty())
    return why;
  end_allocation(s, *t, ev.reason, ev.exit_code, ev.at_us);
  return {};
}

verdict apply_one(cluster_state& s, const trial_restarted& ev) {
  trial_info* t = nullptr;
  if (auto why = find(s, ev.trial_id, t); !why.empty())
    return why;
  if (auto why = managed(s.experiments.at(t->experiment_id)); !why.empty())
    return why;
  if (t->status != trial_status::exited)
    return trial_name(t->id) + " is " + to_string(t->status) + ", not exited";
  const auto& e = s.experiments.at(t->experiment_id);
  if (t->restarts > e.max_restarts)
    return trial_name(t->id) + " has exhausted its restarts ("
           + std::to_string(t->restarts) + " > "
           + std::to_string(e.max_restarts) + ")";
  if (is_terminal(e.status))
    return "experiment " + std::to_string(e.id) + " has ended";
  t->status = trial_status::pending;
  return {};
}

namespace {

verdict close_trial(cluster_state& s, int64_t id, trial_status to,
                    const std::string& reason, int64_t at_us) {
  trial_info* t = nullptr;
  if (auto why = find(s, id, t); !why.empty())
    return why;
  if (auto why = managed(s.experiments.at(t->experiment_id)); !why.empty())
    return why;
  if (t->status != trial_status::pending && t->status != trial_status::exited)
    return trial_name(t->id) + " is " + to_string(t->status)
           + "; only pending or exited trials can be closed";
  t->status = to;
  t->end_reason = reason;
  t->ended_at_us = at_us;
  queue_trial_end(s, *t);
  return {};
}

} // namespace

verdict apply_one(cluster_state& s, const trial_errored& ev) {
  return close_trial(s, ev.trial_id, trial_status::errored, ev.reason,
                     ev.at_us);
}

verdict apply_one(cluster_state& s, const trial_canceled& ev) {
  return close_trial(s, ev.trial_id, trial_status::canceled, ev.reason,
                     ev.at_us);
}

} // namespace det::state::detail
