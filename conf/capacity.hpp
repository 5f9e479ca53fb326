#pragma once

// Can a trial of N slots ever run in a pool? Checked when an experiment is
// submitted (upstream's CapacityCheck), so a trial that could never be
// placed is refused with a reason instead of waiting forever. The rules are
// the fitting rules of policy/: a trial fits on one agent, or it takes
// whole agents (a multiple of the agent size) unless is_single_node.

#include "messages/errc.hpp"

#include <caf/error.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace det::conf {

struct resource_pool_config;

/// The largest a pool can ever be.
struct pool_capacity {
  std::string pool_name;
  int64_t max_agents = 0;      ///< instances (dynamic) or agents (static)
  int64_t slots_per_agent = 0; ///< the largest agent's slot count
};

/// The capacity of a dynamic pool from its provider block
/// (max_instances x slots_per_instance); nullopt for a static pool, whose
/// capacity the caller knows from its connected agents.
std::optional<pool_capacity> max_capacity(const resource_pool_config& pool);

/// None when `slots_per_trial` can fit in `cap`; otherwise errc::
/// invalid_argument naming resources.slots_per_trial and saying why, e.g.
/// "resources.slots_per_trial: 16 slots can never fit in resource pool
/// \"gpu\": it has at most 8 slots (2 agents x 4 slots)". Zero-slot trials
/// always fit.
[[nodiscard]] caf::error check_slots_fit(int64_t slots_per_trial,
                                         bool is_single_node,
                                         const pool_capacity& cap);

} // namespace det::conf
