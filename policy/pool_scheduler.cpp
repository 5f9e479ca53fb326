#include "policy/pool_scheduler.hpp"

#include "policy/capacity.hpp"
#include "policy/scheduler_passes.hpp"
#include "policy/slot_index.hpp"

namespace det::policy {

schedule_result schedule_pool(const pool_snapshot& snapshot,
                              const scheduler_config& config) {
  schedule_result out;
  slot_index index{snapshot.agents, config.fitting};
  capacity_check capacity{snapshot.capacity, snapshot.agents};
  if (config.policy == scheduling_policy::fair_share)
    detail::run_fair_share(snapshot, index, capacity, out);
  else
    detail::run_priority(snapshot, config, index, capacity, out);
  return out;
}

} // namespace det::policy
