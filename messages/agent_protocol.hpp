#pragma once

// docs/agent_protocol.md (version 1) as plain data: builders for the frames
// det-agent sends, a parser for the frames the master sends (the agent's
// side) and one for the frames agents send (the master's side). Pure: no
// I/O, no threads.

#include "messages/errc.hpp"

#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace det::agent {

constexpr int protocol_version = 1;

/// A trial's exit the agent keeps until the master acknowledges it.
struct exit_report {
  std::string allocation_id;
  int exit_code = 0;
  int64_t exited_at_us = 0; ///< the agent's wall clock
};

struct hello_info {
  std::string agent_id;
  std::string resource_pool;
  int64_t slots = 0;
  std::string slot_type = "cpu"; ///< "cpu" | "cuda"
  std::string instance_id;
  /// Every allocation the agent holds, the exited ones too (so a master
  /// that does not read `exited` keeps them until their exit frame).
  std::vector<std::string> running;
  /// Exits not yet acknowledged.
  std::vector<exit_report> exited;
};

std::string hello_frame(const hello_info& h);
std::string running_frame(const std::string& allocation_id);
std::string exited_frame(const std::string& allocation_id, int exit_code,
                         int64_t exited_at_us = 0);
std::string log_frame(const std::string& allocation_id, int64_t trial_id,
                      const std::vector<std::string>& lines);
std::string heartbeat_frame();
std::string error_frame(const std::string& message);

struct checkpoint_ref {
  std::string uuid;
  int64_t steps_completed = 0;
};

/// A `start` frame.
struct start_request {
  std::string allocation_id;
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  std::vector<int64_t> slots;
  nlohmann::json hparams = nlohmann::json::object();
  int64_t target_length = 0;
  std::optional<checkpoint_ref> resume_from;
  std::string entrypoint;
  std::map<std::string, std::string> env;
  /// Set for a task's allocation (a command, notebook, shell, TensorBoard
  /// or generic task; trial_id is 0 then): it runs `entrypoint` as it is,
  /// with no model definition and no harness files.
  std::string task_id;
  std::string task_type;
};

/// One frame from the master. `type` is as sent (unknown types included);
/// the fields that type uses are filled in.
struct master_frame {
  std::string type;
  std::string agent_id;                    ///< welcome
  int64_t heartbeat_interval_s = 0;        ///< welcome; 0 = not sent
  int64_t heartbeat_interval_ms = 0;       ///< welcome; 0 = not sent (use _s)
  std::string allocation_id;               ///< preempt, kill
  std::vector<std::string> allocation_ids; ///< exit_ack
  std::string reason;                      ///< preempt
  std::string message;                     ///< error
  start_request start;                     ///< start
};

/// Fails with errc::invalid_argument naming the problem ("not JSON",
/// "start: allocation_id: required") for frames that cannot be acted on.
[[nodiscard]] caf::expected<master_frame>
parse_master_frame(const std::string& text);

/// One frame from an agent. `type` is as sent (unknown types included);
/// the fields that type uses are filled in.
struct agent_frame {
  std::string type;
  hello_info hello;               ///< hello
  std::string allocation_id;      ///< running, exited, log
  int32_t exit_code = -1;         ///< exited; -1 when not sent
  int64_t trial_id = 0;           ///< log
  std::vector<std::string> lines; ///< log; entries that are not text dropped
};

/// Decodes a frame an agent sent into `out`. Fails with
/// errc::invalid_argument naming the field ("not a JSON object",
/// "hello.slots: expected a whole number from 0 to 2147483647") when a
/// field has the wrong type or is out of range; `out.type` then still
/// holds the frame's type when it was text, so the master can tell a bad
/// hello (which ends the connection) from a bad report (which is answered
/// with an error frame).
[[nodiscard]] caf::error parse_agent_frame(const std::string& text,
                                           agent_frame& out);

/// The trial's environment for `start` (the table in the protocol doc);
/// `start.env` is applied last, so the master may override any of them.
std::map<std::string, std::string>
trial_environment(const start_request& start, const std::string& master_url,
                  const std::string& checkpoint_dir,
                  const std::string& agent_id = "");

/// A task's environment for `start` (task_id set): where the master is,
/// which allocation and slots it runs on; `start.env` is applied last.
std::map<std::string, std::string>
task_environment(const start_request& start, const std::string& master_url,
                 const std::string& agent_id);

} // namespace det::agent
