#pragma once

// How a provisioned pool should scale, as a pure function of what the
// provisioner actor knows: pending demand, connected agents, the pool's
// instances and the time (passed in). The provisioner calls it on its tick
// and turns the result into instance_launch_requested /
// instance_termination_requested events before calling the cloud.
//
// Differences from upstream's scale decider, on purpose:
// - demand is packed (first-fit decreasing, best fit) into the free slots of
//   connected agents and into instances still starting before anything is
//   launched, so free capacity and launches in flight are not bought twice;
// - fragmentation is honest: a 4-slot trial does not count two agents with 2
//   free slots each as room, and a multi-instance gang needs whole idle
//   instances (as the scheduler's gang rule does);
// - trials that no set of instances can ever hold (more than max_instances *
//   slots_per_instance, or a gang that is not a multiple of an instance) are
//   reported, not launched for, and not silently dropped;
// - an idle agent that the pending demand will use is never terminated, and
//   ready agents are counted before instances still starting, so the
//   decision never terminates capacity it is about to wait for.

#include "policy/time.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace det::policy {

/// Instance states as the cloud reports them (EC2: pending -> starting,
/// running, stopping, stopped, shutting-down -> terminating). A pending spot
/// request counts as starting.
enum class instance_state { starting, running, stopping, stopped, terminating };

struct instance_view {
  std::string id; // equals the agent id of its det-agent
  instance_state state = instance_state::starting;
  timestamp launched;
  /// Set when its agent connected once and has been gone since then.
  std::optional<timestamp> disconnected_since;
  /// Its agent (connected or waiting to reconnect) holds a trial: never
  /// terminated, whatever its timers say.
  bool busy = false;
};

/// A connected agent. `idle_since` is set while no slot is in use.
struct scale_agent {
  std::string id;
  int slots = 0;
  int free_slots = 0;
  bool schedulable = true; // enabled and not draining
  std::optional<timestamp> idle_since;
  /// Emptied to give its instance back: terminated as soon as it is idle
  /// (not schedulable), without waiting for max_idle_agent_period.
  bool retiring = false;
};

struct scale_config {
  int slots_per_instance = 1;
  int min_instances = 0;
  int max_instances = 5;
  duration max_idle_agent_period = std::chrono::minutes(20);
  duration max_agent_starting_period = std::chrono::minutes(20);
  duration max_disconnected_period = std::chrono::minutes(10);
};

struct scale_input {
  /// Slot needs of the pending allocations (any order).
  std::vector<int> pending_slots;
  std::vector<scale_agent> agents;
  std::vector<instance_view> instances;
  timestamp now;
};

enum class termination_reason {
  idle,            // idle longer than max_idle_agent_period
  never_connected, // no agent within max_agent_starting_period: replace
  disconnected,    // agent gone longer than max_disconnected_period
  stopped,         // a stopped instance only costs money
  over_maximum,    // more instances than max_instances
};

const char* to_string(termination_reason r);

struct termination {
  std::string instance_id;
  termination_reason reason;
};

struct scale_decision {
  /// Instances to launch now.
  int launch = 0;
  /// Of `launch`, the instances min_instances asks for; the rest is for
  /// pending demand (which the provisioner may hold back for its
  /// scale_up_delay).
  int for_minimum = 0;
  std::vector<termination> terminate;
  /// Instances the demand wants before max_instances caps it.
  int wanted = 0;
  /// Indices into pending_slots of needs no set of instances can hold.
  std::vector<size_t> never_fit;
};

/// Never terminates below min_instances for idleness, never launches past
/// max_instances, always launches up to min_instances. Requires
/// slots_per_instance > 0 and 0 <= min_instances <= max_instances.
[[nodiscard]] scale_decision decide_scale(const scale_input& in,
                                          const scale_config& config);

} // namespace det::policy
