#include "sim/engine_state.hpp"

#include "policy/scale_decision.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>

namespace det::sim::detail {

namespace {

policy::timestamp at_ms(int64_t ms) {
  return policy::timestamp{} + std::chrono::milliseconds{ms};
}

constexpr int64_t ca_delay_after_add_ms = 10 * 60 * 1000;
constexpr int64_t node_registration_ttl_ms = 15 * 60 * 1000;

// policy::decide_scale, fed as core/provisioning.cpp feeds it from the
// master's state.
fleet_change decide_ours(sim_state& s) {
  const auto& c = *s.config;
  policy::scale_input in;
  in.now = at_ms(s.now_ms);
  for (auto j : s.waiting)
    in.pending_slots.push_back((*s.jobs)[j].gpus);
  std::vector<size_t> index;
  for (auto i : s.live) {
    const auto& x = s.instances[i];
    if (x.connected) {
      policy::scale_agent a;
      a.id = x.id;
      a.slots = c.gpus_per_instance;
      a.free_slots = static_cast<int>(x.free.size());
      // A draining instance is the consolidation's to terminate.
      a.schedulable = !x.draining;
      if (x.idle_since_ms >= 0 && !x.draining)
        a.idle_since = at_ms(x.idle_since_ms);
      in.agents.push_back(std::move(a));
    }
    policy::instance_view v;
    v.id = x.id;
    v.state = x.connected ? policy::instance_state::running
                          : policy::instance_state::starting;
    v.launched = at_ms(x.launched_ms);
    v.busy = x.draining;
    in.instances.push_back(std::move(v));
  }
  policy::scale_config sc;
  sc.slots_per_instance = c.gpus_per_instance;
  sc.min_instances = c.min_instances;
  sc.max_instances = c.max_instances;
  sc.max_idle_agent_period = std::chrono::seconds{s.policy->idle_s};
  sc.max_agent_starting_period = std::chrono::seconds{c.max_agent_starting_s};
  auto d = policy::decide_scale(in, sc);
  fleet_change out;
  out.launch = d.launch;
  for (const auto& t : d.terminate)
    out.terminate.push_back(std::stoul(t.instance_id.substr(2)));
  return out;
}

// Terminations shared by the baselines: idle longer than `idle_ms` (while
// above min_instances and `may_scale_down`, and not `kept`), no agent
// after `starting_ms`.
void idle_and_stuck(const sim_state& s, int64_t idle_ms, int64_t starting_ms,
                    bool may_scale_down, fleet_change& out,
                    const std::set<size_t>& kept = {}) {
  int alive = s.alive();
  for (auto i : s.live) {
    const auto& x = s.instances[i];
    if (!x.connected && s.now_ms - x.launched_ms >= starting_ms) {
      out.terminate.push_back(i);
      --alive;
    } else if (x.connected && may_scale_down && x.idle_since_ms >= 0
               && s.now_ms - x.idle_since_ms >= idle_ms
               && alive > s.config->min_instances && kept.count(i) == 0) {
      out.terminate.push_back(i);
      --alive;
    }
  }
}

// Determined's provisioner: desired = ceil(pending slots / slots per
// instance) - instances starting; free capacity is not subtracted, and a
// gang larger than an instance but not a multiple of it never counts.
fleet_change decide_determined(sim_state& s) {
  const auto& c = *s.config;
  const int g = c.gpus_per_instance;
  long long slots = 0;
  for (auto j : s.waiting) {
    int n = (*s.jobs)[j].gpus;
    if ((n > g && n % g != 0)
        || n > static_cast<long long>(c.max_instances) * g)
      continue;
    slots += n;
  }
  fleet_change out;
  long long desired = (slots + g - 1) / g - s.starting();
  out.launch = static_cast<int>(
      std::clamp<long long>(desired, 0, c.max_instances - s.alive()));
  idle_and_stuck(s, s.policy->idle_s * 1000, c.max_agent_starting_s * 1000,
                 true, out);
  return out;
}

// Both launch for the pending pods beyond the room of nodes still
// starting. Karpenter also nominates pending pods to empty nodes that can
// hold them, and never disrupts a nominated node: without that, a gang
// whose nodes come up one by one would lose each to consolidateAfter 0
// before the last arrived, forever.
fleet_change decide_packing(sim_state& s, bool ca) {
  const auto& c = *s.config;
  std::vector<int> pending;
  for (auto j : s.waiting)
    pending.push_back((*s.jobs)[j].gpus);
  std::vector<int> room;
  std::vector<size_t> owner;
  for (auto i : s.live) {
    const auto& x = s.instances[i];
    if (!x.connected || (!ca && x.idle_since_ms >= 0)) {
      room.push_back(c.gpus_per_instance);
      owner.push_back(i);
    }
  }
  std::vector<bool> used;
  fleet_change out;
  out.launch =
      std::clamp(instances_needed(pending, room, c.gpus_per_instance, &used), 0,
                 std::max(0, c.max_instances - s.alive()));
  std::set<size_t> nominated;
  for (size_t b = 0; b < used.size(); ++b)
    if (used[b])
      nominated.insert(owner[b]);
  bool may_scale_down = !ca || s.last_launch_ms < 0
                        || s.now_ms - s.last_launch_ms >= ca_delay_after_add_ms;
  idle_and_stuck(s, s.policy->idle_s * 1000, node_registration_ttl_ms,
                 may_scale_down, out, nominated);
  return out;
}

} // namespace

int instances_needed(std::vector<int> pending, std::vector<int> room, int g,
                     std::vector<bool>* used) {
  std::sort(pending.begin(), pending.end(), std::greater<>{});
  const size_t given = room.size();
  std::vector<bool> took(given, false);
  int launch = 0;
  auto take = [&](std::vector<int>::iterator it, int n) {
    auto b = static_cast<size_t>(it - room.begin());
    if (b < given)
      took[b] = true;
    *it -= n;
  };
  for (int n : pending) {
    if (n >= g) {
      // A gang takes whole empty nodes, then new ones.
      for (int k = (n + g - 1) / g; k > 0; --k) {
        auto it = std::find(room.begin(), room.end(), g);
        if (it == room.end()) {
          ++launch;
          continue;
        }
        take(it, g);
      }
      continue;
    }
    auto it = std::find_if(room.begin(), room.end(),
                           [n](int free) { return free >= n; });
    if (it == room.end()) {
      room.push_back(g);
      ++launch;
      it = room.end() - 1;
    }
    take(it, n);
  }
  if (used != nullptr)
    *used = std::move(took);
  return launch;
}

int64_t decision_period_ms(fleet_rule r) {
  switch (r) {
  case fleet_rule::ours:
    return 0; // woken by every change (DET_PROVISIONER_WAKE)
  case fleet_rule::determined:
    return 5000;
  case fleet_rule::cluster_autoscaler:
    return 10000;
  case fleet_rule::karpenter:
    return 1000; // pod batching: 1 s idle
  }
  return 0;
}

fleet_change decide_fleet(sim_state& s) {
  switch (s.policy->rule) {
  case fleet_rule::ours:
    return decide_ours(s);
  case fleet_rule::determined:
    return decide_determined(s);
  case fleet_rule::cluster_autoscaler:
    return decide_packing(s, true);
  case fleet_rule::karpenter:
    return decide_packing(s, false);
  }
  return {};
}

int sim_state::alive() const {
  return static_cast<int>(live.size());
}

int sim_state::starting() const {
  int n = 0;
  for (auto i : live)
    n += instances[i].connected ? 0 : 1;
  return n;
}

} // namespace det::sim::detail
