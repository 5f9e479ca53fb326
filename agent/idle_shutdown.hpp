#pragma once

// det-agent's side of policy/idle_self_shutdown: an agent on a provisioned
// instance that runs no trial and cannot reach the master stops once it
// has been idle as long as the pool's max_idle_agent_period (the master
// would have terminated it then; while the master is down nobody else
// can). det-agent then exits with `idle_shutdown_exit_code`, which the
// instance's launch script (provision/aws_provider.cpp) turns into a
// shutdown; the instance is launched to terminate on shutdown. When the
// master is back it finds the instance gone and reconciles it like any
// vanished instance.
//
// An exit the master has not acknowledged yet keeps the agent busy, as a
// running trial does: a trial's exit is never lost (docs/agent_protocol.md),
// so an instance whose trial ended while the master was away waits for
// the master to record it, and the master reaps it after that.
//
// idle_shutdown_watch is pure (time passed in); idle_shutdown_monitor
// feeds it from the agent on a thread of its own.

#include "policy/idle_self_shutdown.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace det::agent {

/// det-agent's exit code after stopping itself for idleness.
constexpr int idle_shutdown_exit_code = 75;

/// What the agent sees at one moment.
struct idle_observation {
  bool connected = false; ///< welcomed by the master on a live connection
  /// No allocation known: none starting or running, no exit waiting for
  /// the master's acknowledgement.
  bool idle = false;
};

class idle_shutdown_watch {
public:
  explicit idle_shutdown_watch(policy::self_shutdown_config c) : c_(c) {}

  /// Records what the agent sees at `now` (calls come in time order) and
  /// says whether the instance should stop now.
  bool observe(const idle_observation& o, policy::timestamp now);

  /// When observe() turns true if nothing changes; nothing when it never
  /// will (busy, connected, or the rule off).
  [[nodiscard]] std::optional<policy::timestamp> due_at() const;

private:
  [[nodiscard]] policy::self_shutdown_input input(policy::timestamp now) const;

  policy::self_shutdown_config c_;
  std::optional<policy::timestamp> idle_since_;
  std::optional<policy::timestamp> disconnected_since_;
};

/// Asks `look` every `poll` (and at the watch's due time), and calls `fire`
/// once when the watch says the instance should stop. Does nothing when
/// the rule is off (max_idle zero). The destructor stops and joins.
class idle_shutdown_monitor {
public:
  using clock_fn = std::function<policy::timestamp()>;

  idle_shutdown_monitor(
      policy::self_shutdown_config c, std::chrono::milliseconds poll,
      std::function<idle_observation()> look, std::function<void()> fire,
      clock_fn now = [] { return std::chrono::system_clock::now(); });
  ~idle_shutdown_monitor();
  idle_shutdown_monitor(const idle_shutdown_monitor&) = delete;
  idle_shutdown_monitor& operator=(const idle_shutdown_monitor&) = delete;

private:
  void loop();

  idle_shutdown_watch watch_;
  std::chrono::milliseconds poll_;
  std::function<idle_observation()> look_;
  std::function<void()> fire_;
  clock_fn now_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace det::agent
