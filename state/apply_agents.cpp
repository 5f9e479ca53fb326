// apply() for pools and agents. An agent is connected, then possibly
// disconnected (keeping its slots and trials until its reconnect deadline),
// then either reconnects with the same pool, slots and instance, or is lost:
// losing it ends every allocation that holds one of its slots.

#include "state/apply_detail.hpp"
#include "state/queries.hpp"

#include <algorithm>

#include <set>

namespace det::state::detail {

namespace {

std::string agent_name(const std::string& id) {
  return "agent " + quote(id);
}

/// Points `out` at connected agent `id`, or says why it cannot: unknown, or
/// disconnected (`disconnected` completes the sentence).
verdict connected_agent(cluster_state& s, const std::string& id,
                        const char* disconnected, agent_info*& out) {
  auto i = s.agents.find(id);
  if (i == s.agents.end())
    return "unknown " + agent_name(id);
  if (i->second.status != agent_status::connected)
    return agent_name(id) + disconnected;
  out = &i->second;
  return {};
}

} // namespace

verdict apply_one(cluster_state& s, const pool_configured& ev) {
  auto& p = s.pools[ev.pool];
  p.config = ev;
  return {};
}

verdict apply_one(cluster_state& s, const agent_connected& ev) {
  if (s.pools.count(ev.pool) == 0)
    return "unknown pool " + quote(ev.pool);
  auto i = s.agents.find(ev.agent_id);
  if (i != s.agents.end()) {
    auto& a = i->second;
    if (a.status == agent_status::connected)
      return agent_name(ev.agent_id) + " is already connected";
    if (a.pool != ev.pool || a.slots.size() != static_cast<size_t>(ev.slots)
        || a.slot_type != ev.slot_type || a.instance_id != ev.instance_id)
      return agent_name(ev.agent_id)
             + " reconnected with another pool, slots or instance";
    a.status = agent_status::connected;
    a.connected_at_us = ev.at_us;
    a.disconnected_at_us = 0;
    a.reconnect_deadline_us = 0;
    return {};
  }
  instance_info* inst = nullptr;
  if (!ev.instance_id.empty()) {
    auto j = s.instances.find(ev.instance_id);
    if (j == s.instances.end())
      return "unknown instance " + quote(ev.instance_id);
    inst = &j->second;
    if (inst->pool != ev.pool)
      return "instance " + quote(ev.instance_id) + " belongs to pool "
             + quote(inst->pool);
    if (!inst->agent_id.empty())
      return "instance " + quote(ev.instance_id) + " already has "
             + agent_name(inst->agent_id);
  }
  agent_info a;
  a.id = ev.agent_id;
  a.pool = ev.pool;
  a.slot_type = ev.slot_type;
  a.instance_id = ev.instance_id;
  a.slots.assign(static_cast<size_t>(ev.slots), std::string{});
  a.connected_at_us = ev.at_us;
  a.idle_since_us = ev.at_us;
  s.agents.emplace(a.id, std::move(a));
  if (inst != nullptr) {
    inst->agent_id = ev.agent_id;
    inst->agent_gone_since_us.reset();
  }
  return {};
}

verdict apply_one(cluster_state& s, const agent_disconnected& ev) {
  agent_info* found = nullptr;
  if (auto why = connected_agent(s, ev.agent_id, " is not connected", found);
      !why.empty())
    return why;
  auto& a = *found;
  if (ev.reconnect_deadline_us < ev.at_us)
    return "reconnect deadline lies before the disconnect";
  a.status = agent_status::disconnected;
  a.disconnected_at_us = ev.at_us;
  a.reconnect_deadline_us = ev.reconnect_deadline_us;
  return {};
}

verdict apply_one(cluster_state& s, const agent_lost& ev) {
  auto i = s.agents.find(ev.agent_id);
  if (i == s.agents.end())
    return "unknown " + agent_name(ev.agent_id);
  std::set<trial_info*> holders;
  for (const auto& used_by : i->second.slots) {
    if (used_by.empty() || task_of_allocation(s, used_by) != nullptr)
      continue;
    auto k = s.allocations.find(used_by);
    auto t =
        k == s.allocations.end() ? s.trials.end() : s.trials.find(k->second);
    if (t == s.trials.end())
      return "slot of " + agent_name(ev.agent_id) + " is used by unknown "
             + "allocation " + quote(used_by);
    holders.insert(&t->second);
  }
  auto reason = ev.reason == "spot_reclaimed" ? "spot_reclaimed" : "agent_lost";
  for (auto* t : holders)
    end_allocation(s, *t, reason, -1, ev.at_us);
  // Tasks on it end too, zero-slot ones included.
  for (auto& [id, task] : s.tasks)
    if (holds_allocation(task) && task.agent_id == ev.agent_id)
      end_task_allocation(s, task, "agent_lost", -1, "agent lost: " + ev.reason,
                          ev.at_us);
  auto inst = s.instances.find(i->second.instance_id);
  if (inst != s.instances.end() && inst->second.agent_id == ev.agent_id) {
    inst->second.agent_id.clear();
    inst->second.agent_gone_since_us = ev.at_us;
  }
  s.agents.erase(i);
  return {};
}

verdict apply_one(cluster_state& s, const agent_enabled& ev) {
  agent_info* found = nullptr;
  if (auto why = connected_agent(s, ev.agent_id, " is disconnected", found);
      !why.empty())
    return why;
  auto& a = *found;
  if (a.enabled)
    return agent_name(ev.agent_id) + " is already enabled";
  a.enabled = true;
  a.draining = false;
  a.retiring = false;
  return {};
}

verdict apply_one(cluster_state& s, const slot_disabled& ev) {
  auto i = s.agents.find(ev.agent_id);
  if (i == s.agents.end())
    return "unknown " + agent_name(ev.agent_id);
  auto& a = i->second;
  if (ev.slot_id >= static_cast<int64_t>(a.slots.size()))
    return agent_name(ev.agent_id) + " has no slot "
           + std::to_string(ev.slot_id);
  auto& d = a.disabled_slots;
  auto at = std::lower_bound(d.begin(), d.end(), ev.slot_id);
  if (at == d.end() || *at != ev.slot_id)
    d.insert(at, ev.slot_id);
  return {};
}

verdict apply_one(cluster_state& s, const slot_enabled& ev) {
  auto i = s.agents.find(ev.agent_id);
  if (i == s.agents.end())
    return "unknown " + agent_name(ev.agent_id);
  auto& d = i->second.disabled_slots;
  auto at = std::lower_bound(d.begin(), d.end(), ev.slot_id);
  if (at == d.end() || *at != ev.slot_id)
    return agent_name(ev.agent_id) + " slot " + std::to_string(ev.slot_id)
           + " is not disabled";
  d.erase(at);
  return {};
}

verdict apply_one(cluster_state& s, const agent_disabled& ev) {
  agent_info* found = nullptr;
  if (auto why = connected_agent(s, ev.agent_id, " is disconnected", found);
      !why.empty())
    return why;
  auto& a = *found;
  a.enabled = false;
  a.draining = ev.drain;
  a.retiring = ev.retire;
  return {};
}

} // namespace det::state::detail
