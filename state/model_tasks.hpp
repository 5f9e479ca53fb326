#pragma once

// Tasks: commands, notebooks, shells, TensorBoards and generic tasks
// (messages/events_tasks.hpp). Plain data like state/model.hpp; only
// apply_tasks.cpp changes them.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace det::state {

/// Upstream's taskv1.State of a task, without PULLING (nothing is pulled:
/// tasks run as processes). A placed task is STARTING until the agent
/// reports its process running.
enum class task_state { queued, starting, running, terminating, terminated };

/// "STATE_QUEUED", "STATE_STARTING", ... as upstream's API spells them.
const char* to_string(task_state x);
[[nodiscard]] bool from_string(const std::string& name, task_state& out);

struct task_info {
  /// A UUID (messages/events_tasks.hpp's require_task_id).
  std::string id;
  /// COMMAND, NOTEBOOK, SHELL, TENSORBOARD or GENERIC.
  std::string task_type;
  std::string owner;
  std::string description;
  /// The merged config it runs with.
  nlohmann::json config = nlohmann::json::object();
  std::string pool;
  int32_t slots = 1;
  int32_t priority = 42;
  double weight = 1.0;
  int64_t workspace_id = 1;
  task_state state = task_state::queued;
  /// Set from task_placed on (kept after the exit, for its logs).
  std::string allocation_id;
  std::string agent_id;
  /// The agent's slots it holds; empty once terminated.
  std::vector<int64_t> agent_slots;
  bool ready = false;
  /// Where its service listens, from task_ready (port 0: none).
  std::string proxy_host;
  int32_t proxy_port = 0;
  /// Who asked it to stop, and why (task_kill_requested).
  std::string kill_requested_by;
  std::string kill_reason;
  int64_t launched_at_us = 0;
  int64_t placed_at_us = 0;
  int64_t running_at_us = 0;
  int64_t ended_at_us = 0;
  /// From task_exited: completed, failed, killed, agent_lost.
  std::string exit_reason;
  int32_t exit_code = 0;
  /// Upstream's exitStatus text ("" while it lives).
  std::string exit_message;
  /// How many allocations it was placed with (the next is
  /// "<id>.<allocations + 1>"): more than 1 only for a generic task that
  /// was paused and unpaused.
  int32_t allocations = 0;
  /// Asked to pause (a generic task): it exits "paused".
  bool pausing = false;
  /// The generic task it was forked from, if any.
  std::string forked_from;
  /// A TensorBoard's storage, experiments and trials (task_launched).
  nlohmann::json tensorboard;
  /// A generic task's parent, and how its pauses go (task_launched).
  std::string parent_id;
  bool no_pause = false;
  bool pauses_with_parent = false;
};

/// The allocation `t` is placed with next: "<id>.<n>".
inline std::string next_allocation_id(const task_info& t) {
  return t.id + "." + std::to_string(t.allocations + 1);
}

/// Whether `t` is a paused generic task: ended, holding nothing, never
/// forgotten until it is unpaused (task_unpaused) and ends for good.
inline bool is_paused(const task_info& t) {
  return t.state == task_state::terminated && t.exit_reason == "paused";
}

bool operator==(const task_info& a, const task_info& b);

/// Whether `t` holds its allocation (placed and not yet terminated).
inline bool holds_allocation(const task_info& t) {
  return !t.allocation_id.empty() && t.state != task_state::queued
         && t.state != task_state::terminated;
}

} // namespace det::state
