// apply() for the provisioners' records. A launch (launch_seq, client token)
// stays outstanding until as many instances or spot requests as it asked for
// were seen, or it failed. An instance goes pending -> running ->
// terminating and leaves the state when terminated; a spot request is open
// until fulfilled (it becomes a pending instance) or cancelled. Agents link
// to instances through agent_connected.instance_id (apply_agents.cpp).

#include "state/apply_detail.hpp"

namespace det::state::detail {

namespace {

std::string instance_name(const std::string& id) {
  return "instance " + quote(id);
}

/// The pool of a provisioner event, or a refusal.
verdict provisioned_pool(cluster_state& s, const std::string& pool,
                         pool_info*& out) {
  auto i = s.pools.find(pool);
  if (i == s.pools.end())
    return "unknown pool " + quote(pool);
  if (i->second.config.provider.empty())
    return "pool " + quote(pool) + " has no provisioner";
  out = &i->second;
  return {};
}

/// Checks that `seq` (when not 0) is an outstanding launch of `p` of the
/// right kind.
verdict check_launch(const pool_info& p, int64_t seq, bool spot) {
  if (seq == 0)
    return {};
  auto i = p.launches.find(seq);
  if (i == p.launches.end())
    return "launch " + std::to_string(seq) + " of pool " + quote(p.config.pool)
           + " is not outstanding";
  if (i->second.spot != spot)
    return "launch " + std::to_string(seq) + " was " + (spot ? "not " : "")
           + "a spot launch";
  return {};
}

/// Refuses an instance id that is known, or that a (reconnect-pending)
/// agent of a terminated instance still names: EC2 never reuses ids.
verdict check_new_instance(const cluster_state& s, const std::string& id) {
  if (s.instances.count(id) != 0)
    return instance_name(id) + " is already known";
  for (const auto& [agent_id, a] : s.agents)
    if (a.instance_id == id)
      return "agent " + quote(agent_id) + " still names " + instance_name(id);
  return {};
}

/// One instance or spot request of launch `seq` was seen.
void count_launch(pool_info& p, int64_t seq) {
  if (seq == 0)
    return;
  auto i = p.launches.find(seq);
  if (++i->second.seen >= i->second.count)
    p.launches.erase(i);
  p.consecutive_launch_failures = 0;
}

} // namespace

verdict apply_one(cluster_state& s, const instance_launch_requested& ev) {
  pool_info* p = nullptr;
  if (auto why = provisioned_pool(s, ev.pool, p); !why.empty())
    return why;
  if (ev.launch_seq != p->launches_requested + 1)
    return "launch_seq " + std::to_string(ev.launch_seq) + " does not follow "
           + std::to_string(p->launches_requested);
  p->launches_requested = ev.launch_seq;
  p->launches.emplace(ev.launch_seq,
                      launch_info{ev.launch_seq, ev.client_token, ev.count,
                                  ev.spot, 0, ev.at_us});
  return {};
}

verdict apply_one(cluster_state& s, const instance_launch_failed& ev) {
  pool_info* p = nullptr;
  if (auto why = provisioned_pool(s, ev.pool, p); !why.empty())
    return why;
  auto i = p->launches.find(ev.launch_seq);
  if (i == p->launches.end())
    return "launch " + std::to_string(ev.launch_seq) + " is not outstanding";
  p->launches.erase(i);
  ++p->consecutive_launch_failures;
  p->last_launch_error_kind = ev.error_kind;
  p->last_launch_error = ev.message;
  p->last_launch_error_at_us = ev.at_us;
  return {};
}

verdict apply_one(cluster_state& s, const instance_pending& ev) {
  pool_info* p = nullptr;
  if (auto why = provisioned_pool(s, ev.pool, p); !why.empty())
    return why;
  if (auto why = check_new_instance(s, ev.instance_id); !why.empty())
    return why;
  if (auto why = check_launch(*p, ev.launch_seq, false); !why.empty())
    return why;
  count_launch(*p, ev.launch_seq);
  instance_info x;
  x.id = ev.instance_id;
  x.pool = ev.pool;
  x.launch_seq = ev.launch_seq;
  x.launched_at_us = ev.at_us;
  s.instances.emplace(x.id, std::move(x));
  return {};
}

verdict apply_one(cluster_state& s, const instance_running& ev) {
  auto i = s.instances.find(ev.instance_id);
  if (i == s.instances.end())
    return "unknown " + instance_name(ev.instance_id);
  if (i->second.status != instance_status::pending)
    return instance_name(ev.instance_id) + " is " + to_string(i->second.status)
           + ", not pending";
  i->second.status = instance_status::running;
  i->second.running_at_us = ev.at_us;
  return {};
}

verdict apply_one(cluster_state& s, const instance_terminate_requested& ev) {
  auto i = s.instances.find(ev.instance_id);
  if (i == s.instances.end())
    return "unknown " + instance_name(ev.instance_id);
  if (i->second.status == instance_status::terminating)
    return instance_name(ev.instance_id) + " is already terminating";
  i->second.status = instance_status::terminating;
  i->second.terminate_reason = ev.reason;
  i->second.terminate_requested_at_us = ev.at_us;
  return {};
}

verdict apply_one(cluster_state& s, const instance_terminated& ev) {
  auto i = s.instances.find(ev.instance_id);
  if (i == s.instances.end())
    return "unknown " + instance_name(ev.instance_id);
  // Its agent, if still there, stays until it is lost: the agent's socket,
  // not EC2, says when its trials are gone.
  s.instances.erase(i);
  return {};
}

verdict apply_one(cluster_state& s, const spot_request_opened& ev) {
  pool_info* p = nullptr;
  if (auto why = provisioned_pool(s, ev.pool, p); !why.empty())
    return why;
  if (ev.request_id.empty())
    return "request_id must not be empty";
  if (s.spot_requests.count(ev.request_id) != 0)
    return "spot request " + quote(ev.request_id) + " is already open";
  if (auto why = check_launch(*p, ev.launch_seq, true); !why.empty())
    return why;
  count_launch(*p, ev.launch_seq);
  s.spot_requests.emplace(
      ev.request_id,
      spot_request_info{ev.request_id, ev.pool, ev.launch_seq, ev.at_us});
  return {};
}

verdict apply_one(cluster_state& s, const spot_request_fulfilled& ev) {
  auto i = s.spot_requests.find(ev.request_id);
  if (i == s.spot_requests.end())
    return "spot request " + quote(ev.request_id) + " is not open";
  if (auto why = check_new_instance(s, ev.instance_id); !why.empty())
    return why;
  instance_info x;
  x.id = ev.instance_id;
  x.pool = i->second.pool;
  x.launch_seq = i->second.launch_seq;
  x.spot_request_id = ev.request_id;
  x.launched_at_us = ev.at_us;
  s.instances.emplace(x.id, std::move(x));
  s.spot_requests.erase(i);
  return {};
}

verdict apply_one(cluster_state& s, const spot_request_cancelled& ev) {
  auto i = s.spot_requests.find(ev.request_id);
  if (i == s.spot_requests.end())
    return "spot request " + quote(ev.request_id) + " is not open";
  s.spot_requests.erase(i);
  return {};
}

} // namespace det::state::detail
