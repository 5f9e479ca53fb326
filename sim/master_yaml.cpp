#include "sim/master_yaml.hpp"

#include <chrono>
#include <utility>

namespace det::sim {

double on_demand_price(const std::string& instance_type) {
  static const std::pair<const char*, double> table[] = {
      {"p3.2xlarge", 3.06},      {"p3.8xlarge", 12.24},
      {"p3.16xlarge", 24.48},    {"p3dn.24xlarge", 31.212},
      {"p4d.24xlarge", 32.7726}, {"g4dn.xlarge", 0.526},
      {"g4dn.12xlarge", 3.912},  {"g4dn.metal", 7.824},
      {"g5.xlarge", 1.006},      {"g5.12xlarge", 5.672},
      {"g5.48xlarge", 16.288},   {"p2.xlarge", 0.9},
      {"p2.8xlarge", 7.2},       {"p2.16xlarge", 14.4},
  };
  for (const auto& [name, price] : table)
    if (instance_type == name)
      return price;
  return 0;
}

bool config_from_master(const conf::master_config& m, const std::string& pool,
                        sim_config& out, policy_spec& ours,
                        std::string& error) {
  auto name = pool.empty() ? m.default_compute_resource_pool : pool;
  const auto* p = m.find_pool(name);
  if (p == nullptr) {
    error = "master.yaml has no resource pool " + name;
    return false;
  }
  const auto& pc = p->provider;
  if (pc.type == conf::provider_type::none) {
    error = "resource pool " + name + " has no provider: nothing to scale";
    return false;
  }
  out.gpus_per_instance = static_cast<int>(pc.slots_per_instance());
  if (out.gpus_per_instance <= 0) {
    error = "resource pool " + name + " has no GPUs per instance";
    return false;
  }
  out.min_instances = static_cast<int>(pc.min_instances);
  out.max_instances = static_cast<int>(pc.max_instances);
  out.max_agent_starting_s = std::chrono::duration_cast<std::chrono::seconds>(
                                 pc.max_agent_starting_period)
                                 .count();
  out.instance_type = pc.aws.instance_type;
  out.spot = pc.aws.spot;
  out.price_per_hour = on_demand_price(pc.aws.instance_type);
  ours.idle_s =
      std::chrono::duration_cast<std::chrono::seconds>(pc.max_idle_agent_period)
          .count();
  const auto& sc = p->scheduler;
  out.scheduler.policy = sc.type == "fair_share"
                             ? policy::scheduling_policy::fair_share
                             : policy::scheduling_policy::priority;
  out.scheduler.preemption = sc.preemption;
  out.scheduler.fitting = sc.fitting_policy == "worst"
                              ? policy::fitting_policy::worst
                              : policy::fitting_policy::best;
  return true;
}

} // namespace det::sim
