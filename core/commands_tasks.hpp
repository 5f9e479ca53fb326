#pragma once

// The commands on tasks (commands, notebooks, shells, TensorBoards, generic
// tasks), part of core/commands.hpp's `command`. Each names the user it is
// for; the API checked the arguments it could (the body's fields, the
// owner), the core checks what only its state can tell
// (core/master_core_tasks.cpp).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace det {

/// A task to launch, checked by the API (id drawn there: the core draws
/// nothing; pool resolved, config merged).
struct task_launch {
  std::string task_id;
  std::string task_type;
  std::string owner;
  std::string description;
  nlohmann::json config = nlohmann::json::object();
  std::string pool;
  int32_t slots = 1;
  int32_t priority = 42;
  double weight = 1.0;
  int64_t workspace_id = 1;
  std::string forked_from;
  nlohmann::json tensorboard;
  std::string parent_id;
  bool no_pause = false;
  bool pauses_with_parent = false;
};

/// Kill `task_id` and every task under it, or with `from_root` the whole
/// tree from its topmost ancestor (master_core::kill_task_tree); `reason`
/// empty is "killed by user". Reply {"task_id"}.
struct task_kill {
  std::string task_id;
  std::string username;
  std::string reason = {};
  bool from_root = false;
};

/// Pause a generic task (master_core::pause_task). Reply {"task_id"}.
struct task_pause {
  std::string task_id;
  std::string username;
};

/// Unpause a paused generic task (master_core::unpause_task).
struct task_unpause {
  std::string task_id;
  std::string username;
};

/// The service of `allocation_id` answers: at `proxy_host`:`proxy_port`
/// when it is to be proxied (port 0: not proxied).
struct task_ready_report {
  std::string allocation_id;
  std::string proxy_host;
  int32_t proxy_port = 0;
};

/// Set a task's priority (1..99, master_core::set_task_priority).
struct task_priority_change {
  std::string task_id;
  int32_t priority = 0;
  std::string username;
};

} // namespace det
