// master_core::decide's deciders of the commands on agents and the reports
// of their allocations (core/commands_agents.hpp): each is the master_core
// method it names (master_core_agents.cpp, master_core_capacity.cpp,
// master_core.cpp), with its refusals.

#include "core/master_core.hpp"

namespace det {

decision master_core::on(const agent_connect& c, int64_t now_us) {
  return agent_connected(c.agent_id, c.pool, c.slots, c.slot_type,
                         c.instance_id, c.allocations, now_us);
}

decision master_core::on(const agent_disconnect& c, int64_t now_us) {
  return agent_disconnected(c.agent_id, c.why, now_us);
}

decision master_core::on(const agent_enable& c, int64_t now_us) {
  return set_agent_enabled(c.agent_id, c.enabled, c.drain, now_us);
}

decision master_core::on(const slot_enable& c, int64_t now_us) {
  return set_slot_enabled(c.agent_id, c.slot_id, c.enabled, c.drain, now_us);
}

decision master_core::on(const agent_resize& c, int64_t now_us) {
  return set_agent_slots(c.agent_id, c.slots, now_us);
}

decision master_core::on(const spot_interruption_notice& c, int64_t now_us) {
  return spot_interruption(c.agent_id, now_us);
}

decision master_core::on(const allocation_running_report& c, int64_t now_us) {
  return allocation_running(c.allocation_id, now_us);
}

decision master_core::on(const allocation_exit_report& c, int64_t now_us) {
  return allocation_exited(c.allocation_id, c.exit_code, now_us);
}

decision master_core::on(const checkpoint_report& c, int64_t now_us) {
  return checkpoint_reported(c.allocation_id, c.uuid, c.steps, c.metadata,
                             now_us);
}

decision master_core::on(const metrics_report& c, int64_t now_us) {
  return metrics_reported(c.allocation_id, c.kind, c.steps, c.metrics, now_us);
}

} // namespace det
