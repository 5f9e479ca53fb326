#pragma once

// The agent channel, /agents/ws (docs/agent_protocol.md). For each accepted
// WebSocket: `hello` (pool checked against the master's state) spawns an
// agent_actor whose connection is a small actor that turns the master's
// start/preempt/kill orders into frames on the socket, in order; `running`
// and `exited` frames go to the agent actor, `log` frames to trial_logs;
// the socket closing, or the agent missing `missed_heartbeats` heartbeat
// intervals (policy/heartbeat_monitor), becomes disconn. The upgrade itself is
// refused with 401 unless it carries master.yaml's agent_token (when one is
// set).

#include "actors/master_actor.hpp"
#include "api/agent_addresses.hpp"
#include "api/codec.hpp"
#include "api/task_logs.hpp"
#include "api/trial_logs.hpp"
#include "api/views.hpp"
#include "http/http_server.hpp"

#include <caf/actor_system.hpp>

#include <chrono>
#include <memory>

namespace det::api {

struct agent_ws_context {
  caf::actor_system* sys = nullptr;
  master_actor master;
  std::shared_ptr<trial_logs> logs;
  /// Tasks' output (commands, notebooks ...); null: dropped.
  std::shared_ptr<task_logs> task_log_book;
  /// Where each agent connected from (its socket's peer); null: not kept.
  std::shared_ptr<agent_address_book> addresses;
  std::shared_ptr<const session_tokens> tokens;
  start_context start;
  std::string agent_token; ///< "" = no token required
  /// Both ends send a heartbeat this often; an agent silent for
  /// missed_heartbeats intervals is disconnected (its socket closed, its
  /// trials kept for agent_reconnect_wait).
  std::chrono::milliseconds heartbeat_interval{std::chrono::seconds{10}};
  int missed_heartbeats = 3;
};

/// The accept handler for http_server::add_websocket.
http::ws_accept_handler
agent_ws_handler(std::shared_ptr<const agent_ws_context> ctx);

/// The authorizer for http_server::add_websocket (agent token check).
http::ws_authorizer
agent_ws_authorizer(std::shared_ptr<const agent_ws_context> ctx);

/// The most slots one agent may report (a hello beyond it is refused).
inline constexpr int32_t max_agent_slots = 1024;

/// What a decoded hello (agent::parse_agent_frame) must also keep, or
/// errc::invalid_argument naming the field: names are at most 255 bytes of
/// UTF-8 without control characters, slots and running allocations at
/// most max_agent_slots.
[[nodiscard]] caf::error check_hello(const agent_hello& h);

} // namespace det::api
