#include "conf/capacity.hpp"

#include "conf/master_config.hpp"

namespace det::conf {

std::optional<pool_capacity> max_capacity(const resource_pool_config& pool) {
  if (pool.provider.type == provider_type::none)
    return std::nullopt;
  return pool_capacity{pool.pool_name, pool.provider.max_instances,
                       pool.provider.slots_per_instance()};
}

caf::error check_slots_fit(int64_t slots, bool is_single_node,
                           const pool_capacity& cap) {
  if (slots <= 0)
    return caf::none;
  auto n = std::to_string(slots);
  auto per = std::to_string(cap.slots_per_agent);
  auto never = "resources.slots_per_trial: " + n
               + (slots == 1 ? " slot" : " slots")
               + " can never fit in resource pool \"" + cap.pool_name + "\": ";
  auto fail = [&](const std::string& why) {
    return make_error(errc::invalid_argument, never + why);
  };
  if (cap.max_agents <= 0 || cap.slots_per_agent <= 0)
    return fail("its agents have no slots (use slots_per_trial: 0, or "
                "another pool)");
  if (slots <= cap.slots_per_agent)
    return caf::none;
  if (is_single_node)
    return fail("with is_single_node a trial must fit on one agent, and the "
                "largest has "
                + per + " slots");
  int64_t total = cap.max_agents * cap.slots_per_agent;
  if (slots > total)
    return fail("it has at most " + std::to_string(total) + " slots ("
                + std::to_string(cap.max_agents)
                + (cap.max_agents == 1 ? " agent x " : " agents x ") + per
                + " slots)");
  if (slots % cap.slots_per_agent != 0)
    return fail("a trial larger than one agent (" + per
                + " slots) takes whole agents, so it needs a multiple of " + per
                + " slots");
  return caf::none;
}

} // namespace det::conf
