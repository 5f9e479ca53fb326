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
// An exit the master has not acknowledged yet is never lost
// (docs/agent_protocol.md). With an exit recorder (det-agent on a
// provisioned EC2 instance: agent/exit_tag_writer.hpp) such exits do not
// keep the agent busy: when the stop is due it writes them into its
// instance's tags (messages/exit_tags.hpp) and stops only once that
// succeeded; a failed write is retried with backoff, a bounded number of
// times, and after that the agent stays and keeps the exits for the
// master. Without a recorder an exit keeps the agent busy, as a running
// trial does, until the master records it.
//
// idle_shutdown_watch is pure (time passed in); idle_shutdown_monitor
// feeds it from the agent on a thread of its own.

#include "messages/agent_protocol.hpp"
#include "policy/backoff.hpp"
#include "policy/idle_self_shutdown.hpp"

#include <caf/error.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace det::agent {

/// det-agent's exit code after stopping itself for idleness.
constexpr int idle_shutdown_exit_code = 75;

/// What the agent sees at one moment.
struct idle_observation {
  bool connected = false; ///< welcomed by the master on a live connection
  /// No allocation known: none starting or running, no exit waiting for
  /// the master's acknowledgement.
  bool idle = false;
  /// Nothing starting or running; `exits` wait for the master's
  /// acknowledgement (idle implies it).
  bool only_exits = false;
  /// The exits the master has not acknowledged.
  std::vector<exit_report> exits;
};

/// How an agent with an exit recorder retries a failed write: a few
/// attempts with backoff, then it stays (exits are never dropped).
inline policy::backoff_config default_exit_record_backoff() {
  policy::backoff_config c;
  c.initial = std::chrono::seconds{5};
  c.max_delay = std::chrono::minutes{2};
  c.jitter = 0;
  c.max_attempts = 6;
  return c;
}

/// What the agent does next (idle_shutdown_watch::step).
struct idle_step {
  enum class kind { wait, record_exits, stop } what = kind::wait;
  /// record_exits: the exits to write (those not written yet).
  std::vector<exit_report> exits;
};

class idle_shutdown_watch {
public:
  /// `can_record`: the agent has an exit recorder, so exits alone do not
  /// keep it busy.
  explicit idle_shutdown_watch(
      policy::self_shutdown_config c, bool can_record = false,
      policy::backoff_config retry = default_exit_record_backoff())
      : c_(c), can_record_(can_record), retry_(retry) {}

  /// Records what the agent sees at `now` (calls come in time order) and
  /// says what to do: stop only when the stop is due and no exit is left
  /// unwritten; record_exits when exits must go into the tags first.
  idle_step step(const idle_observation& o, policy::timestamp now);

  /// The result of writing `exits` (a step's) at `now`: written, or a
  /// failure that backs off (and, once the attempts are spent, stays
  /// until the master is reachable again).
  void recorded(const std::vector<exit_report>& exits, bool ok,
                policy::timestamp now);

  /// step(...).what == stop.
  bool observe(const idle_observation& o, policy::timestamp now);

  /// When step() may do something if nothing changes (the stop, or the
  /// next attempt at writing exits); nothing when it never will (busy,
  /// connected, the rule off, or the attempts spent).
  [[nodiscard]] std::optional<policy::timestamp> due_at() const;

private:
  [[nodiscard]] policy::self_shutdown_input input(policy::timestamp now) const;

  policy::self_shutdown_config c_;
  bool can_record_ = false;
  policy::backoff_config retry_;
  policy::backoff_state backoff_;
  std::optional<policy::timestamp> idle_since_;
  std::optional<policy::timestamp> disconnected_since_;
  std::set<std::string> written_;
};

/// Writes exits into the instance's own tags; an error when it did not.
using exit_recorder =
    std::function<caf::error(const std::vector<exit_report>& exits)>;

/// Asks `look` every `poll` (and at the watch's due time), writes exits
/// through `record` when the watch says so (if given), and calls `fire`
/// once when the watch says the instance should stop. Does nothing when
/// the rule is off (max_idle zero). The destructor stops and joins.
class idle_shutdown_monitor {
public:
  using clock_fn = std::function<policy::timestamp()>;

  idle_shutdown_monitor(
      policy::self_shutdown_config c, std::chrono::milliseconds poll,
      std::function<idle_observation()> look, std::function<void()> fire,
      clock_fn now = [] { return std::chrono::system_clock::now(); },
      exit_recorder record = {});
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
  exit_recorder record_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace det::agent
