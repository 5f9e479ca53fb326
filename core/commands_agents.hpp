#pragma once

// The commands on agents and on the allocations they run, part of
// core/commands.hpp's `command`: an operator's changes to an agent (the
// API), what the cloud says of it (a spot notice, a Kubernetes pool's new
// size) and what agents and trial processes report of their allocations
// (through the agent actors, and the trial API's checkpoints and
// metrics). Decided in core/master_core_on_agents.cpp by the master_core
// methods they name, whose refusals they keep.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace det {

// -- connections ------------------------------------------------------------

/// A trial allocation an agent reports when it (re)connects: still
/// running, or exited with `exit_code` (the agent keeps an exit until the
/// master acknowledges it, so an exit the previous master never recorded
/// arrives here).
struct reported_allocation {
  reported_allocation(std::string id,
                      std::optional<int32_t> code = std::nullopt)
      : allocation_id(std::move(id)), exit_code(code) {}
  std::string allocation_id;
  std::optional<int32_t> exit_code;
};

/// An agent (re)connected (master_core::agent_connected): what its hello
/// says. The master actor keeps the agent actor's handle (connect_atom)
/// and decides this.
struct agent_connect {
  std::string agent_id;
  std::string pool = {};
  int32_t slots = 0;
  std::string slot_type = "cpu";
  std::string instance_id = {};
  std::vector<reported_allocation> allocations = {};
};

/// The agent's connection ended (master_core::agent_disconnected); the
/// master actor takes it only from the current connection (disconn_atom).
struct agent_disconnect {
  std::string agent_id;
  std::string why = {};
};

// -- operators and the cloud ------------------------------------------------

/// `det agent enable/disable` (master_core::set_agent_enabled).
struct agent_enable {
  std::string agent_id;
  bool enabled = true;
  bool drain = false;
};

/// `det slot enable/disable` (master_core::set_slot_enabled).
struct slot_enable {
  std::string agent_id;
  int64_t slot_id = 0;
  bool enabled = true;
  bool drain = false;
};

/// The agent has `slots` slots now (master_core::set_agent_slots).
struct agent_resize {
  std::string agent_id;
  int32_t slots = 0;
};

/// The agent's spot instance is about to be reclaimed
/// (master_core::spot_interruption). Reply {"trials": N}, the trials asked
/// to checkpoint.
struct spot_interruption_notice {
  std::string agent_id;
};

// -- reports of allocations -------------------------------------------------

/// An allocation (a trial's or a task's) runs
/// (master_core::allocation_running).
struct allocation_running_report {
  std::string allocation_id;
};

/// An allocation exited (master_core::allocation_exited). The master
/// answers once the log durably holds the exit, also when an earlier
/// report recorded it (this one writes nothing), so the agent may forget
/// it.
struct allocation_exit_report {
  std::string allocation_id;
  int32_t exit_code = 0;
};

/// A trial process saved a checkpoint (master_core::checkpoint_reported).
struct checkpoint_report {
  std::string allocation_id;
  std::string uuid = {};
  int64_t steps = 0;
  nlohmann::json metadata = nlohmann::json::object();
};

/// A trial process reported metrics of `kind` (master_core::
/// metrics_reported).
struct metrics_report {
  std::string allocation_id;
  std::string kind = {};
  int64_t steps = 0;
  nlohmann::json metrics = nlohmann::json::object();
};

} // namespace det
