#include "rm/core_settings.hpp"

#include <filesystem>

namespace det::rm {

core_config core_config_from(const conf::master_config& cfg,
                             const std::string& host, int64_t pid) {
  core_config c;
  c.cluster_id = cfg.cluster_id.empty() ? default_cluster_id : cfg.cluster_id;
  c.host = host;
  c.pid = pid;
  c.master_version = "0.38.1";
  c.launch_error = cfg.launch_error;
  // Kubernetes PriorityClasses rank a larger value first, det-agents'
  // schedulers a smaller one (config policies' priority_limit follows).
  c.priority_smaller_is_higher = cfg.resource_manager_type != "kubernetes";
  c.agent_reconnect_wait_us =
      std::chrono::duration_cast<std::chrono::microseconds>(
          cfg.agent_reconnect_wait)
          .count();
  for (const auto& rp : cfg.resource_pools) {
    pool_configured p;
    p.pool = rp.pool_name;
    p.scheduler = rp.scheduler.type;
    const auto& pc = rp.provider;
    if (pc.type != conf::provider_type::none) {
      p.provider = conf::to_string(pc.type);
      p.slots_per_instance = static_cast<int32_t>(pc.slots_per_instance());
      p.min_instances = static_cast<int32_t>(pc.min_instances);
      p.max_instances = static_cast<int32_t>(pc.max_instances);
      p.instance_type = pc.type == conf::provider_type::aws
                            ? pc.aws.instance_type
                            : std::string{};
      p.spot = pc.type == conf::provider_type::aws && pc.aws.spot;
      p.max_idle_agent_period_s =
          std::chrono::duration_cast<std::chrono::seconds>(
              pc.max_idle_agent_period)
              .count();
      p.max_agent_starting_period_s =
          std::chrono::duration_cast<std::chrono::seconds>(
              pc.max_agent_starting_period)
              .count();
      if (pc.consolidate) {
        policy::consolidation_config cc;
        cc.consolidate_after = pc.consolidate_after;
        cc.move_cost = pc.consolidation_move_cost;
        c.consolidation[rp.pool_name] = cc;
      }
    }
    p.agent_reconnect_wait_s = std::chrono::duration_cast<std::chrono::seconds>(
                                   rp.agent_reconnect_wait)
                                   .count();
    c.pools.push_back(p);
    policy::scheduler_config sc;
    sc.policy = rp.scheduler.type == "fair_share"
                    ? policy::scheduling_policy::fair_share
                    : policy::scheduling_policy::priority;
    sc.fitting = rp.scheduler.fitting_policy == "worst"
                     ? policy::fitting_policy::worst
                     : policy::fitting_policy::best;
    sc.preemption = rp.scheduler.preemption;
    c.schedulers[rp.pool_name] = sc;
  }
  return c;
}

std::string checkpoint_dir(const conf::master_config& cfg) {
  const auto& cs = cfg.checkpoint_storage;
  if (cs.type != "shared_fs")
    return "";
  return (std::filesystem::path{cs.host_path} / cs.storage_path).string();
}

} // namespace det::rm
