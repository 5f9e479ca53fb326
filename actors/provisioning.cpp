#include "actors/provisioning.hpp"

#include "state/queries.hpp"

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

} // namespace

policy::scale_config scale_config_of(const state::pool_info& p) {
  policy::scale_config c;
  const auto& pc = p.config;
  c.slots_per_instance = std::max<int>(1, pc.slots_per_instance);
  c.min_instances = pc.min_instances;
  c.max_instances = std::max(pc.min_instances, pc.max_instances);
  c.max_idle_agent_period = std::chrono::seconds{pc.max_idle_agent_period_s};
  c.max_agent_starting_period
    = std::chrono::seconds{pc.max_agent_starting_period_s};
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
  for (auto a : state::agents_of_pool(s, pool)) {
    if (a->status != state::agent_status::connected)
      continue;
    policy::scale_agent x;
    x.id = a->id;
    x.slots = static_cast<int>(a->slots.size());
    x.free_slots = state::free_slots(*a);
    x.schedulable = state::schedulable(*a);
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
    in.instances.push_back(std::move(v));
  }
  return in;
}

provisioning_plan plan_provisioning(const state::cluster_state& s,
                                    const std::string& pool, int64_t now_us,
                                    const std::set<std::string>& alive) {
  provisioning_plan plan;
  auto p = state::find_pool(s, pool);
  if (p == nullptr)
    return plan;
  plan.next_seq = state::next_launch_seq(s, pool);
  auto in = scale_input_of(s, pool, now_us);
  std::vector<policy::instance_view> kept;
  for (auto& v : in.instances) {
    if (alive.count(v.id) == 0)
      plan.gone.push_back(v.id);
    else if (v.state == policy::instance_state::terminating)
      plan.still_terminating.push_back(v.id);
    else
      kept.push_back(v);
  }
  // Terminating instances still count against max_instances.
  for (auto& v : in.instances)
    if (alive.count(v.id) != 0
        && v.state == policy::instance_state::terminating)
      kept.push_back(v);
  in.instances = std::move(kept);
  auto d = policy::decide_scale(in, scale_config_of(*p));
  plan.launch = d.launch;
  for (const auto& t : d.terminate) {
    auto i = state::find_instance(s, t.instance_id);
    if (i != nullptr && i->status != state::instance_status::terminating)
      plan.terminate.emplace_back(t.instance_id, reason_name(t.reason));
  }
  return plan;
}

nlohmann::json to_json(const provisioning_plan& p) {
  return {{"launch", p.launch},
          {"next_seq", p.next_seq},
          {"terminate", p.terminate},
          {"gone", p.gone},
          {"still_terminating", p.still_terminating}};
}

provisioning_plan plan_from_json(const nlohmann::json& j) {
  provisioning_plan p;
  p.launch = j.value("launch", 0);
  p.next_seq = j.value("next_seq", int64_t{0});
  p.terminate = j.value("terminate", decltype(p.terminate){});
  p.gone = j.value("gone", std::vector<std::string>{});
  p.still_terminating
    = j.value("still_terminating", std::vector<std::string>{});
  return p;
}

} // namespace det
