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
#include <string>

namespace det {

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
