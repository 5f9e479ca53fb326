#pragma once

// Persisted events of tasks: commands, notebooks, shells, TensorBoards and
// generic tasks (upstream's NTSC). Each task is a job with one allocation
// at a time ("<task id>.<n>", n counting from 1: a generic task that is
// paused and unpaused gets the next) on one agent, scheduled like a trial
// but never preempted.
// A task is launched (QUEUED), placed on an agent (its slots held), runs,
// may become ready (its service answers), may be asked to stop, exits
// (TERMINATED, slots freed) and is forgotten a while later. Included by
// messages/events.hpp (the catalogue); the rules there apply (past tense,
// never renamed, new fields at the end). All of them belong to stream
// "task/<id>".

#include "messages/event_definition.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// Upstream's task types (DET_TASK_TYPE, JOB_TYPE_*).
inline const std::vector<std::string>& task_types() {
  static const std::vector<std::string> xs{"COMMAND", "NOTEBOOK", "SHELL",
                                           "TENSORBOARD", "GENERIC"};
  return xs;
}

/// task_exited reasons: the process exited 0, exited otherwise (or could
/// not start), was killed, its agent was lost, or (a generic task) it was
/// paused: it waits, holding nothing, to be unpaused.
inline const std::vector<std::string>& task_exit_reasons() {
  static const std::vector<std::string> xs{"completed", "failed", "killed",
                                           "agent_lost", "paused"};
  return xs;
}

/// A task id is a UUID as upstream gives them: 1 to 64 characters of
/// lower-case hex digits and dashes (it names a stream, a folder on the
/// agent and a proxy path, so nothing else may enter it).
inline void require_task_id(const std::string& id) {
  bool ok =
      !id.empty() && id.size() <= 64
      && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-';
         });
  if (!ok)
    throw field_error("field 'task_id': expected a UUID (hex digits and "
                      "dashes, at most 64)");
}

/// The allocation of a task is "<task id>.<n>", n >= 1.
inline void require_task_allocation(const std::string& task_id,
                                    const std::string& alloc) {
  auto prefix = task_id + ".";
  bool ok =
      alloc.size() > prefix.size() && alloc.size() <= prefix.size() + 9
      && alloc.compare(0, prefix.size(), prefix) == 0
      && alloc[prefix.size()] != '0'
      && std::all_of(alloc.begin() + static_cast<long>(prefix.size()),
                     alloc.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!ok)
    throw field_error("field 'allocation_id': expected '" + prefix + "<n>'");
}

/// A user launched a task: `config` is the merged config the task runs
/// with (entrypoint, environment, resources ...), `slots` how many it
/// holds (0 for a TensorBoard), on one agent of `pool`.
struct task_launched {
  static constexpr const char* type_name = "task_launched";
  static constexpr int32_t version = 1;
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
  int64_t at_us = 0;
  /// A generic task forked from another (its config and context).
  std::string forked_from;
  /// A TensorBoard's data: {"storage": the checkpoint storage its
  /// experiments write to, "experiments": [id...], "trials": [[experiment
  /// id, trial id]...]}; null for any other task.
  nlohmann::json tensorboard;
  /// A generic task's parent (`parentId`): killing a task kills its
  /// children, pausing it pauses those with pauses_with_parent.
  std::string parent_id;
  /// `noPause: true`: pausing this task itself is refused.
  bool no_pause = false;
  /// `noPause: false` given for a child: its parent's pause pauses it
  /// (a child that says nothing is left running, as upstream).
  bool pauses_with_parent = false;

  template <class F> void fields(F& f) {
    f.req("task_id", task_id);
    f.req("task_type", task_type);
    f.req("owner", owner);
    f.opt("description", description);
    f.opt("config", config);
    f.req("pool", pool);
    f.req("slots", slots);
    f.opt("priority", priority);
    f.opt("weight", weight);
    f.opt("workspace_id", workspace_id);
    f.opt("at_us", at_us);
    f.opt("forked_from", forked_from);
    f.opt("tensorboard", tensorboard);
    f.opt("parent_id", parent_id);
    f.opt("no_pause", no_pause);
    f.opt("pauses_with_parent", pauses_with_parent);
  }
  void validate() const {
    require_task_id(task_id);
    if (!forked_from.empty())
      require_task_id(forked_from);
    if (!parent_id.empty())
      require_task_id(parent_id);
    if (!tensorboard.is_null())
      require_object(tensorboard, "field 'tensorboard'");
    require_one_of("task_type", task_type, task_types());
    require_non_empty("owner", owner);
    require_non_empty("pool", pool);
    require_object(config, "field 'config'");
    require_non_negative("slots", slots);
    require_positive("workspace_id", workspace_id);
    if (!(weight > 0))
      throw field_error("field 'weight': must be positive");
  }
  std::string stream() const { return "task/" + task_id; }
};

/// The scheduler gave the task its allocation: `slots` of agent
/// `agent_id` (none for a zero-slot task, which still runs there).
struct task_placed {
  static constexpr const char* type_name = "task_placed";
  static constexpr int32_t version = 1;
  std::string task_id;
  std::string allocation_id;
  std::string agent_id;
  std::vector<int64_t> slots;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("task_id", task_id);
    f.req("allocation_id", allocation_id);
    f.req("agent_id", agent_id);
    f.opt("slots", slots);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_task_id(task_id);
    require_task_allocation(task_id, allocation_id);
    require_non_empty("agent_id", agent_id);
  }
  std::string stream() const { return "task/" + task_id; }
};

/// The agent started the task's process (STATE_RUNNING).
struct task_running {
  static constexpr const char* type_name = "task_running";
  static constexpr int32_t version = 1;
  std::string task_id;
  std::string allocation_id;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("task_id", task_id);
    f.req("allocation_id", allocation_id);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_task_id(task_id);
    require_task_allocation(task_id, allocation_id);
  }
  std::string stream() const { return "task/" + task_id; }
};

/// The task's service answers (POST /api/v1/allocations/{id}/ready, or its
/// readiness line on the agent): `isReady` of its allocation. A service
/// the master proxies to (`/proxy/{task id}/`) names where it listens:
/// `proxy_host` (an IP address) and `proxy_port` (0: nothing to proxy).
struct task_ready {
  static constexpr const char* type_name = "task_ready";
  static constexpr int32_t version = 1;
  std::string task_id;
  std::string allocation_id;
  int64_t at_us = 0;
  std::string proxy_host;
  int32_t proxy_port = 0;

  template <class F> void fields(F& f) {
    f.req("task_id", task_id);
    f.req("allocation_id", allocation_id);
    f.opt("at_us", at_us);
    f.opt("proxy_host", proxy_host);
    f.opt("proxy_port", proxy_port);
  }
  void validate() const {
    require_task_id(task_id);
    require_task_allocation(task_id, allocation_id);
    if (proxy_port < 0 || proxy_port > 65535)
      throw field_error("field 'proxy_port': expected 0 to 65535");
    if (proxy_host.size() > 64
        || proxy_host.find_first_not_of("0123456789abcdefABCDEF.:")
               != std::string::npos)
      throw field_error("field 'proxy_host': expected an IP address");
    if ((proxy_port == 0) != proxy_host.empty())
      throw field_error(
          "fields 'proxy_host' and 'proxy_port': both or neither");
  }
  std::string stream() const { return "task/" + task_id; }
};

/// Someone (`username`, or the master for an idle task) asked a placed
/// task to stop: STATE_TERMINATING until it exits. `pause`: a generic
/// task asked to pause (it exits "paused", to be unpaused later).
struct task_kill_requested {
  static constexpr const char* type_name = "task_kill_requested";
  static constexpr int32_t version = 1;
  std::string task_id;
  std::string allocation_id;
  std::string username;
  std::string reason;
  int64_t at_us = 0;
  bool pause = false;

  template <class F> void fields(F& f) {
    f.req("task_id", task_id);
    f.req("allocation_id", allocation_id);
    f.opt("username", username);
    f.opt("reason", reason);
    f.opt("at_us", at_us);
    f.opt("pause", pause);
  }
  void validate() const {
    require_task_id(task_id);
    require_task_allocation(task_id, allocation_id);
  }
  std::string stream() const { return "task/" + task_id; }
};

/// The task ended (STATE_TERMINATED): its process exited with `exit_code`,
/// or it was killed (before or after placement: `allocation_id` is empty
/// for a task killed while queued), or its agent was lost. Frees its
/// slots. `message` is upstream's exitStatus text.
struct task_exited {
  static constexpr const char* type_name = "task_exited";
  static constexpr int32_t version = 1;
  std::string task_id;
  std::string allocation_id;
  std::string reason;
  int32_t exit_code = 0;
  std::string message;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("task_id", task_id);
    f.opt("allocation_id", allocation_id);
    f.req("reason", reason);
    f.opt("exit_code", exit_code);
    f.opt("message", message);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_task_id(task_id);
    if (!allocation_id.empty())
      require_task_allocation(task_id, allocation_id);
    require_one_of("reason", reason, task_exit_reasons());
  }
  std::string stream() const { return "task/" + task_id; }
};

/// A user set a task's priority (set_priority, det job update).
struct task_priority_set {
  static constexpr const char* type_name = "task_priority_set";
  static constexpr int32_t version = 1;
  std::string task_id;
  int32_t priority = 42;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("task_id", task_id);
    f.req("priority", priority);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_task_id(task_id);
    if (priority < 1 || priority > 99)
      throw field_error("field 'priority': must be between 1 and 99");
  }
  std::string stream() const { return "task/" + task_id; }
};

/// A terminated task leaves the listings (24 h after its exit, as
/// upstream's registry forgets it).
struct task_forgotten {
  static constexpr const char* type_name = "task_forgotten";
  static constexpr int32_t version = 1;
  std::string task_id;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("task_id", task_id);
    f.opt("at_us", at_us);
  }
  void validate() const { require_task_id(task_id); }
  std::string stream() const { return "task/" + task_id; }
};

/// A user unpaused a paused generic task: QUEUED again, for its next
/// allocation.
struct task_unpaused {
  static constexpr const char* type_name = "task_unpaused";
  static constexpr int32_t version = 1;
  std::string task_id;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("task_id", task_id);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const { require_task_id(task_id); }
  std::string stream() const { return "task/" + task_id; }
};

using task_event_family =
    event_family<task_launched, task_placed, task_running, task_ready,
                 task_kill_requested, task_exited, task_priority_set,
                 task_forgotten, task_unpaused>;

} // namespace det
