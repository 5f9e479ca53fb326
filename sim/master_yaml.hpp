#pragma once

// det-sim's fleet from the master's own master.yaml (parsed by conf/):
// one provisioned resource pool's instance type, GPUs per instance,
// min/max instances, max_idle_agent_period, max_agent_starting_period,
// spot, and its scheduler (priority or fair_share, preemption, fitting).
// Prices are not in master.yaml: on_demand_price() knows the GPU types
// conf/ knows (us-east-1 list prices, USD per hour); det-sim's --price
// overrides it.

#include "sim/sim_config.hpp"

#include "conf/master_config.hpp"

#include <string>

namespace det::sim {

/// Fills `out` and the idle period of `ours` from pool `pool` ("" = the
/// default compute pool). Fails with `error` when the pool is missing or
/// has no provider (a static pool has no fleet to simulate).
[[nodiscard]] bool config_from_master(const conf::master_config& m,
                                      const std::string& pool, sim_config& out,
                                      policy_spec& ours, std::string& error);

/// USD per hour of an on-demand instance of `instance_type`; 0 unknown.
[[nodiscard]] double on_demand_price(const std::string& instance_type);

} // namespace det::sim
