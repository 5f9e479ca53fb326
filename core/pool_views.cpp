#include "core/pool_views.hpp"

#include "state/queries.hpp"

#include <algorithm>
#include <climits>
#include <optional>
#include <string_view>

namespace det {

policy::agent_view agent_view_of(const state::agent_info& a) {
  policy::agent_view v;
  v.id = a.id;
  v.total_slots = static_cast<int>(state::slot_capacity(a));
  for (auto i : state::free_slot_ids(a))
    v.free_slots.push_back(static_cast<int>(i));
  v.draining = a.draining;
  return v;
}

policy::pending_allocation pending_view_of(const state::trial_info& t,
                                           const state::experiment_info& e) {
  policy::pending_allocation p;
  p.id = std::to_string(t.id);
  p.experiment_id = std::to_string(e.id);
  p.slots = e.slots_per_trial;
  p.priority = e.priority;
  p.order = static_cast<uint64_t>(t.id);
  p.weight = e.weight;
  p.avoid_agents = t.excluded_agents;
  return p;
}

policy::running_allocation running_view_of(const state::trial_info& t,
                                           const state::experiment_info& e) {
  policy::running_allocation r;
  r.id = std::to_string(t.id);
  r.experiment_id = std::to_string(e.id);
  r.priority = e.priority;
  r.order = static_cast<uint64_t>(t.id);
  r.weight = e.weight;
  r.preempting = t.allocation && t.allocation->preemption_requested;
  if (t.allocation)
    for (const auto& a : t.allocation->assignments) {
      policy::agent_slots as{a.agent_id, {}};
      for (auto s : a.slots)
        as.slots.push_back(static_cast<int>(s));
      r.resources.push_back(std::move(as));
    }
  return r;
}

policy::pool_capacity capacity_view_of(const state::pool_info& p) {
  // A provisioned pool's largest possible capacity is known; a static
  // pool's is not (agents may still join), so nothing "never fits" there.
  policy::pool_capacity c;
  const auto& cfg = p.config;
  if (!cfg.provider.empty() && cfg.slots_per_instance > 0) {
    c.max_slots = cfg.max_instances * cfg.slots_per_instance;
    c.slots_per_instance = cfg.slots_per_instance;
  } else {
    c.max_slots = INT_MAX;
  }
  return c;
}

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// The trial id of a scheduler entry, or -1 for a task ("task:...").
int64_t trial_of(const std::string& id) {
  if (id.empty() || id.size() > 18
      || !std::all_of(id.begin(), id.end(),
                      [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoll(id);
}

} // namespace

void pool_views::note(const std::string& stream) {
  if (pools_.empty())
    return;
  for (auto prefix :
       {"user/", "model/", "template/", "webhook/", "workspace/", "project/"})
    if (starts_with(stream, prefix))
      return;
  auto id_after = [&](std::string_view prefix) -> std::optional<int64_t> {
    if (!starts_with(stream, prefix))
      return std::nullopt;
    auto n = trial_of(stream.substr(prefix.size()));
    return n < 0 ? std::nullopt : std::optional<int64_t>{n};
  };
  if (auto id = id_after("trial/")) {
    for (auto& [name, t] : pools_)
      t.trials.insert(*id);
    return;
  }
  if (auto id = id_after("experiment/")) {
    for (auto& [name, t] : pools_)
      t.experiments.insert(*id);
    return;
  }
  if (starts_with(stream, "agent/")) {
    auto agent = stream.substr(6);
    for (auto& [name, t] : pools_)
      t.agents.insert(agent);
    return;
  }
  for (auto& [name, t] : pools_)
    t.resync = true;
}

void pool_views::reset_from(tracked& t, const policy::pool_snapshot& snap) {
  t = tracked{};
  t.resync = false;
  for (const auto& a : snap.agents)
    t.known_agents.insert(a.id);
  for (const auto& p : snap.pending)
    if (auto id = trial_of(p.id); id >= 0)
      t.pending.insert(id);
    else
      ++t.task_pending;
  for (const auto& r : snap.running)
    if (auto id = trial_of(r.id); id >= 0) {
      auto& agents = t.running[id];
      for (const auto& res : r.resources)
        agents.push_back(res.agent_id);
    } else {
      for (const auto& res : r.resources)
        t.task_agents.insert(res.agent_id);
    }
}

policy::pool_delta
pool_views::take(const state::cluster_state& st, const std::string& pool,
                 const std::function<policy::pool_snapshot()>& full) {
  policy::pool_delta d;
  auto& tr = pools_[pool];
  // An experiment that is gone takes trials with it that only a resync
  // finds again.
  for (auto id : tr.experiments)
    if (state::find_experiment(st, id) == nullptr)
      tr.resync = true;
  for (const auto& a : tr.agents)
    if (tr.task_agents.count(a) != 0)
      tr.resync = true;
  if (tr.resync) {
    d.resync = true;
    d.full = full();
    reset_from(tr, d.full);
    return d;
  }
  if (auto p = state::find_pool(st, pool))
    d.capacity = capacity_view_of(*p);
  // The trials running on a touched agent: its loss ended them.
  if (!tr.agents.empty())
    for (const auto& [id, agents] : tr.running)
      for (const auto& a : agents)
        if (tr.agents.count(a) != 0) {
          tr.trials.insert(id);
          break;
        }
  for (auto id : tr.trials)
    if (auto t = state::find_trial(st, id))
      if (auto e = state::find_experiment(st, t->experiment_id);
          e != nullptr && e->max_slots > 0)
        tr.experiments.insert(e->id);
  std::unordered_map<int64_t, std::unordered_set<int64_t>> offered;
  for (auto id : tr.experiments) {
    const auto& e = *state::find_experiment(st, id);
    for (auto tid : e.trial_ids)
      tr.trials.insert(tid);
    if (e.max_slots > 0) {
      auto& ids = offered[id];
      for (const auto* t : state::offered_trials(st, e))
        ids.insert(t->id);
    }
  }
  for (auto id : tr.trials) {
    auto t = state::find_trial(st, id);
    auto e =
        t == nullptr ? nullptr : state::find_experiment(st, t->experiment_id);
    if (auto it = tr.running.find(id); it != tr.running.end())
      tr.agents.insert(it->second.begin(), it->second.end());
    bool pending = false;
    bool running = false;
    if (t != nullptr && e != nullptr && e->pool == pool) {
      running = t->allocation.has_value();
      if (t->status == state::trial_status::pending
          && e->status == state::experiment_status::active
          && !e->model_definition_pending && !e->unmanaged) {
        auto o = offered.find(e->id);
        pending = o == offered.end() || o->second.count(id) != 0;
      }
    }
    if (pending) {
      d.pending.push_back(pending_view_of(*t, *e));
      tr.pending.insert(id);
    } else if (tr.pending.erase(id) != 0) {
      d.pending_gone.push_back(std::to_string(id));
    }
    if (running) {
      auto r = running_view_of(*t, *e);
      auto& agents = tr.running[id];
      agents.clear();
      for (const auto& res : r.resources) {
        agents.push_back(res.agent_id);
        tr.agents.insert(res.agent_id);
      }
      d.running.push_back(std::move(r));
    } else if (tr.running.erase(id) != 0) {
      d.running_gone.push_back(std::to_string(id));
    }
  }
  for (const auto& id : tr.agents) {
    auto a = state::find_agent(st, id);
    if (a != nullptr && a->pool == pool && state::schedulable(*a)
        && !state::on_terminating_instance(st, *a)) {
      d.agents.push_back(agent_view_of(*a));
      tr.known_agents.insert(id);
    } else if (tr.known_agents.erase(id) != 0) {
      d.agents_gone.push_back(id);
    }
  }
  tr.trials.clear();
  tr.experiments.clear();
  tr.agents.clear();
  return d;
}

} // namespace det
