#include "core/provisioning.hpp"

#include "state/queries.hpp"

#include <algorithm>
#include <map>

namespace det {

namespace {

policy::timestamp at(int64_t us) {
  return policy::timestamp{std::chrono::microseconds{us}};
}

const char* reason_name(policy::termination_reason r) {
  using tr = policy::termination_reason;
  switch (r) {
  case tr::idle:
    return "idle";
  case tr::never_connected:
    return "starting_timeout";
  case tr::disconnected:
    return "long_disconnected";
  case tr::stopped:
    return "stopped";
  case tr::over_maximum:
    return "over_max";
  }
  return "idle";
}

bool gone_state(const std::string& st) {
  return st == "shutting-down" || st == "terminated";
}

/// The outstanding launch of `p` whose client token is `token`, or null.
const state::launch_info* launch_of(const state::pool_info& p,
                                    const std::string& token) {
  if (token.empty())
    return nullptr;
  for (const auto& [seq, l] : p.launches)
    if (l.client_token == token)
      return &l;
  return nullptr;
}

/// The exits gone instance `i`'s tags claim (in `inv`) that hold up:
/// each names a live allocation on a slot of the agent linked to `i`.
void verify_exit_claims(const state::cluster_state& s,
                        const state::instance_info& i,
                        const provider_inventory& inv,
                        provisioning_plan& plan) {
  if (auto r = inv.refused_exit_tags.find(i.id);
      r != inv.refused_exit_tags.end())
    for (const auto& why : r->second)
      plan.refused_exit_tags.push_back("instance " + i.id + ": " + why);
  auto claims = inv.exit_claims.find(i.id);
  if (claims == inv.exit_claims.end() || claims->second.empty())
    return;
  auto a = state::find_agent(s, i.agent_id.empty() ? i.id : i.agent_id);
  bool linked = a != nullptr && (a->instance_id == i.id || a->id == i.id);
  std::set<std::string> seen;
  for (const auto& e : claims->second) {
    auto refuse = [&](const std::string& why) {
      plan.refused_exit_tags.push_back("instance " + i.id
                                       + ": exit tag for allocation "
                                       + e.allocation_id + ": " + why);
    };
    if (!linked) {
      refuse("no agent of this instance is known");
      continue;
    }
    if (std::find(a->slots.begin(), a->slots.end(), e.allocation_id)
        == a->slots.end()) {
      refuse("not an allocation on this instance's agent");
      continue;
    }
    if (state::trial_of_allocation(s, e.allocation_id) == nullptr
        && state::task_of_allocation(s, e.allocation_id) == nullptr) {
      refuse("not a live allocation");
      continue;
    }
    if (!seen.insert(e.allocation_id).second)
      continue; // one tag per key: cannot happen on EC2, harmless anyway
    plan.tagged_exits.emplace_back(i.id, e);
  }
}

void reconcile(const state::cluster_state& s, const state::pool_info& p,
               const provisioning_input& in, provisioning_plan& plan) {
  const auto& inv = *in.inventory;
  const auto& pool = p.config.pool;
  std::map<std::string, const provider_instance*> have;
  for (const auto& i : inv.instances)
    have.emplace(i.id, &i);
  std::map<std::string, const provider_spot_request*> reqs;
  for (const auto& r : inv.spot_requests)
    reqs.emplace(r.id, &r);
  // Instances of the state.
  std::set<std::string> fulfilled_now;
  for (auto i : state::instances_of_pool(s, pool)) {
    auto h = have.find(i->id);
    bool missing = h == have.end();
    bool ours = i->status == state::instance_status::terminating;
    if (missing && !ours
        && i->launched_at_us > inv.taken_at_us - in.consistency_grace_us)
      continue; // too young to be missing
    if (missing || gone_state(h->second->state)) {
      if (!missing)
        verify_exit_claims(s, *i, inv, plan);
      bool spot = !i->spot_request_id.empty();
      plan.gone.emplace_back(i->id, ours   ? "terminated"
                                    : spot ? "spot_reclaimed"
                                           : "terminated_elsewhere");
      // Its agent: linked by agent_connected.instance_id, or (agents
      // started with --agent-id <instance id>) by id.
      auto a = state::find_agent(s, i->agent_id.empty() ? i->id : i->agent_id);
      if (spot && !ours && a != nullptr
          && a->status != state::agent_status::connected)
        plan.reclaimed_agents.push_back(a->id);
      continue;
    }
    if (i->status == state::instance_status::pending
        && h->second->state == "running")
      plan.now_running.push_back(i->id);
    if (i->status == state::instance_status::terminating)
      plan.still_terminating.push_back(i->id);
  }
  // Open spot requests of the state.
  for (const auto& [id, r] : s.spot_requests) {
    if (r.pool != pool)
      continue;
    auto h = reqs.find(id);
    if (h == reqs.end()) {
      if (r.opened_at_us <= inv.taken_at_us - in.consistency_grace_us)
        plan.spot_closed.emplace_back(id, "missing");
      continue;
    }
    const auto& pr = *h->second;
    if (!pr.instance_id.empty() && s.instances.count(pr.instance_id) == 0) {
      plan.fulfilled.emplace_back(id, pr.instance_id);
      fulfilled_now.insert(pr.instance_id);
    } else if (pr.state == "cancelled" || pr.state == "closed"
               || pr.state == "failed")
      plan.spot_closed.emplace_back(id, pr.state);
  }
  // What the provider has that the state does not know.
  std::map<int64_t, int> adopted;
  for (const auto& i : inv.instances) {
    if (s.instances.count(i.id) != 0 || fulfilled_now.count(i.id) != 0
        || gone_state(i.state))
      continue;
    if (!i.spot_request_id.empty() && s.spot_requests.count(i.spot_request_id))
      continue; // fulfilled above or on a later tick
    auto l = launch_of(p, i.launch_token);
    if (l != nullptr && in.in_flight.count(l->seq) != 0)
      continue; // its launch's answer records it
    if (l != nullptr && !l->spot && l->seen + adopted[l->seq] < l->count) {
      ++adopted[l->seq];
      plan.adopt.push_back({i.id, l->seq, i.state == "running"});
    } else {
      plan.unknown_instances.push_back(i.id);
    }
  }
  for (const auto& r : inv.spot_requests) {
    if (s.spot_requests.count(r.id) != 0)
      continue;
    bool closed =
        r.state == "cancelled" || r.state == "closed" || r.state == "failed";
    if (!r.instance_id.empty() && s.instances.count(r.instance_id) != 0)
      continue; // fulfilled earlier: its instance is known
    auto l = launch_of(p, r.launch_token);
    if (l != nullptr && in.in_flight.count(l->seq) != 0)
      continue; // its launch's answer records it
    if (!closed && l != nullptr && l->spot
        && l->seen + adopted[l->seq] < l->count) {
      ++adopted[l->seq];
      plan.adopt_spot.push_back({r.id, l->seq, false});
    } else if (!closed || !r.instance_id.empty()) {
      plan.unknown_spot_requests.push_back(r.id);
      if (!r.instance_id.empty())
        plan.unknown_instances.push_back(r.instance_id);
    }
  }
  // Launches recorded but never answered (a crash): issue them again.
  for (const auto& [seq, l] : p.launches) {
    if (in.in_flight.count(seq) != 0)
      continue;
    int left = l.count - l.seen - adopted[seq];
    if (left <= 0)
      continue;
    // Part of it is known: a re-issue with the same token and the smaller
    // count would be refused (EC2: IdempotentParameterMismatch) or start a
    // known instance again (local); the rest is closed as partial.
    if (l.seen + adopted[seq] > 0)
      plan.partial_launches.emplace_back(seq, left);
    else
      plan.reissues.push_back({seq, l.client_token, left, l.spot});
  }
}

} // namespace

policy::scale_config scale_config_of(const state::pool_info& p) {
  policy::scale_config c;
  const auto& pc = p.config;
  c.slots_per_instance = std::max<int>(1, pc.slots_per_instance);
  c.min_instances = pc.min_instances;
  c.max_instances = std::max(pc.min_instances, pc.max_instances);
  c.max_idle_agent_period = std::chrono::seconds{pc.max_idle_agent_period_s};
  c.max_agent_starting_period =
      std::chrono::seconds{pc.max_agent_starting_period_s};
  return c;
}

policy::scale_input scale_input_of(const state::cluster_state& s,
                                   const std::string& pool, int64_t now_us) {
  policy::scale_input in;
  in.now = at(now_us);
  for (auto t : state::pending_trials(s, pool)) {
    auto e = state::find_experiment(s, t->experiment_id);
    in.pending_slots.push_back(e ? e->slots_per_trial : 1);
  }
  // Queued commands, notebooks and shells are demand as trials are (one
  // of no slots needs no instance bought for it, as upstream).
  for (const auto& [id, t] : s.tasks)
    if (t.pool == pool && t.state == state::task_state::queued)
      in.pending_slots.push_back(t.slots);
  for (auto a : state::agents_of_pool(s, pool)) {
    if (a->status != state::agent_status::connected)
      continue;
    policy::scale_agent x;
    x.id = a->id;
    x.slots = static_cast<int>(a->slots.size());
    x.free_slots = state::free_slots(*a);
    x.schedulable = state::schedulable(*a);
    x.retiring = a->retiring;
    if (a->idle_since_us)
      x.idle_since = at(*a->idle_since_us);
    in.agents.push_back(std::move(x));
  }
  for (auto i : state::instances_of_pool(s, pool)) {
    policy::instance_view v;
    v.id = i->id;
    v.launched = at(i->launched_at_us);
    switch (i->status) {
    case state::instance_status::pending:
      v.state = policy::instance_state::starting;
      break;
    case state::instance_status::running:
      v.state = policy::instance_state::running;
      break;
    case state::instance_status::terminating:
      v.state = policy::instance_state::terminating;
      break;
    }
    if (i->agent_gone_since_us)
      v.disconnected_since = at(*i->agent_gone_since_us);
    // An agent that connected once and waits to reconnect is not
    // "starting" again: its instance is disconnected since then, and never
    // terminated while its trials wait for it.
    auto a = state::find_agent(s, i->agent_id.empty() ? i->id : i->agent_id);
    if (a != nullptr && a->status != state::agent_status::connected) {
      if (!v.disconnected_since)
        v.disconnected_since = at(a->disconnected_at_us);
      v.busy = state::free_slots(*a) < static_cast<int>(a->slots.size());
    }
    in.instances.push_back(std::move(v));
  }
  if (auto p = state::find_pool(s, pool)) {
    for (const auto& [seq, l] : p->launches)
      for (int k = l.seen; k < l.count; ++k) {
        policy::instance_view v;
        v.id = "launch-" + std::to_string(seq) + "-" + std::to_string(k);
        v.launched = at(l.requested_at_us);
        in.instances.push_back(std::move(v));
      }
  }
  for (const auto& [id, r] : s.spot_requests)
    if (r.pool == pool) {
      policy::instance_view v;
      v.id = id;
      v.launched = at(r.opened_at_us);
      in.instances.push_back(std::move(v));
    }
  return in;
}

provisioning_plan plan_provisioning(const state::cluster_state& s,
                                    const std::string& pool, int64_t now_us,
                                    const provisioning_input& in) {
  provisioning_plan plan;
  auto p = state::find_pool(s, pool);
  if (p == nullptr)
    return plan;
  plan.next_seq = state::next_launch_seq(s, pool);
  plan.launch_failures = p->consecutive_launch_failures;
  plan.last_launch_error_at_us = p->last_launch_error_at_us;
  if (in.inventory)
    reconcile(s, *p, in, plan);
  std::set<std::string> gone;
  for (const auto& g : plan.gone)
    gone.insert(g.first);
  for (const auto& r : plan.spot_closed)
    gone.insert(r.first);
  // Requests fulfilled by this plan are instances now: still counted,
  // never cancelled.
  std::set<std::string> keep = gone;
  for (const auto& f : plan.fulfilled)
    keep.insert(f.first);
  auto input = scale_input_of(s, pool, now_us);
  std::vector<policy::instance_view> kept;
  for (auto& v : input.instances)
    if (gone.count(v.id) == 0)
      kept.push_back(std::move(v));
  input.instances = std::move(kept);
  auto d = policy::decide_scale(input, scale_config_of(*p));
  plan.launch = d.launch;
  plan.launch_for_minimum = d.for_minimum;
  plan.wanted = d.wanted;
  plan.never_fit = static_cast<int>(d.never_fit.size());
  // Re-issued launches are starting instances already counted above.
  for (const auto& t : d.terminate) {
    if (auto i = state::find_instance(s, t.instance_id)) {
      if (i->status != state::instance_status::terminating)
        plan.terminate.emplace_back(t.instance_id, reason_name(t.reason));
    } else if (s.spot_requests.count(t.instance_id) != 0
               && keep.count(t.instance_id) == 0) {
      plan.cancel_spot.push_back(t.instance_id);
    }
  }
  // Open spot requests nobody waits for any more.
  if (input.pending_slots.empty()) {
    int total = 0;
    for (const auto& v : input.instances)
      if (v.state != policy::instance_state::terminating)
        ++total;
    for (const auto& [id, r] : s.spot_requests) {
      if (r.pool != pool || keep.count(id) != 0
          || total <= p->config.min_instances)
        continue;
      if (std::find(plan.cancel_spot.begin(), plan.cancel_spot.end(), id)
          == plan.cancel_spot.end()) {
        plan.cancel_spot.push_back(id);
        --total;
      }
    }
  }
  return plan;
}

std::string local_instance_id(const std::string& pool, int64_t seq) {
  return "local-" + pool + "-" + std::to_string(seq);
}

} // namespace det
