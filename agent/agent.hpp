#pragma once

// The det-agent daemon: keeps one WebSocket to the master
// (docs/agent_protocol.md), reconnecting with jittered backoff forever,
// and runs the trial processes the master starts. Trials outlive a lost
// connection: on reconnect `hello` lists every allocation the agent holds,
// and the exits among them with their code and time; then the frames held
// back meanwhile (running, a bounded amount of log) follow the welcome,
// and every exit is sent again. A trial's exit is kept until the master's
// `exit_ack` names it (the master sends that once its log holds the exit
// durably), so an exit is never lost to a master that dies before
// recording it.
//
// Heartbeats go out every interval the master's welcome names; when no
// frame at all has come from the master for cfg.missed_heartbeats such
// intervals, the agent drops the connection and dials again.
//
// Threads: run() is the connect/heartbeat loop and blocks until stop();
// the connection's I/O thread handles master frames; each `start` gets a
// worker thread (download, unpack, spawn); each trial_process has its own.
// One mutex guards the state; nothing blocks while holding it. Destroying
// the agent kills every trial (SIGKILL to its group).

#include "agent/model_fetch.hpp"
#include "agent/options.hpp"
#include "messages/agent_protocol.hpp"
#include "policy/heartbeat_monitor.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace det::agent {

class trial_process;
class warm_launcher;
struct process_spec;
class ws_client;

class agent {
public:
  explicit agent(agent_settings s);
  ~agent();
  agent(const agent&) = delete;
  agent& operator=(const agent&) = delete;

  /// Connects, serves and reconnects until stop(). Call once.
  void run();

  /// Makes run() return soon (it closes the connection). Any thread.
  void stop();

  /// Sends a control frame (JSON text) to the master, now or once the
  /// master welcomed the connection. Any thread.
  void notify(std::string frame_text);

  /// Allocations the agent knows (starting, running, or exited and not
  /// yet acknowledged by the master).
  [[nodiscard]] std::vector<std::string> allocations() const;

  /// The exits the master has not acknowledged yet.
  [[nodiscard]] std::vector<exit_report> unacknowledged_exits() const;

  /// Welcomed by the master on the current connection.
  [[nodiscard]] bool welcomed() const;

private:
  struct allocation {
    int64_t trial_id = 0;
    std::unique_ptr<trial_process> proc;
    bool kill_requested = false;
    /// Set once the trial ended; kept until the master acknowledges it.
    std::optional<exit_report> exit;
  };
  enum class frame_kind { control, log };
  struct pending_frame {
    std::string text;
    frame_kind kind;
  };

  void on_text(uint64_t gen, const std::string& text);
  void on_closed(uint64_t gen, const std::string& reason);
  void handle(const master_frame& f);
  void handle_start(const start_request& s);
  void prepare_and_spawn(start_request s);
  /// How a download for allocation `s` authenticates (its
  /// DET_SESSION_TOKEN, else the agent's) and waits out a master that
  /// restarts; a kill or the agent's shutdown ends the wait.
  void fetch_setup(const start_request& s, http_options& http,
                   fetch_retry& retry);
  /// A task's allocation: its folder with its context (if it was launched
  /// with one), its environment, its entrypoint as it is (no model
  /// definition, no harness files); on a worker thread.
  void spawn_task(start_request s);
  /// Starts allocation `a`'s (id `id`) process as `spec` says, its lines
  /// and exit reported to the master, and sends "running"; false with
  /// `why` when it cannot start. `what` names it in the log ("trial",
  /// "task"). Requires mu_.
  /// `log_wait`: process_options::log_wait (a task's, 0 for a trial).
  bool start_process_locked(allocation& a, const std::string& id,
                            const process_spec& spec, const char* what,
                            std::chrono::milliseconds log_wait,
                            std::string& why);
  void on_lines(const std::string& alloc, std::vector<std::string> lines);
  void on_exit(const std::string& alloc, int code);
  /// Keeps the exit and sends it when welcomed. Requires mu_.
  void exit_locked(const std::string& alloc, int code);

  /// Sends now when welcomed, else holds the frame (logs up to a limit).
  /// Requires mu_.
  void send_locked(pending_frame f);
  void forget_locked(const std::string& alloc);
  void wait_backoff(std::chrono::milliseconds delay);

  agent_settings s_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  uint64_t generation_ = 0; ///< of the current connection
  uint64_t closed_gen_ = 0; ///< newest connection that has closed
  bool welcomed_ = false;
  std::chrono::milliseconds heartbeat_interval_{std::chrono::seconds{10}};
  /// Frames from the master on the current connection; expired = the
  /// master went silent, the agent dials again.
  policy::heartbeat_monitor master_alive_{std::chrono::seconds{10}, 3, {}};
  std::shared_ptr<ws_client> client_;
  std::map<std::string, allocation> allocs_;
  std::deque<pending_frame> pending_;
  size_t pending_logs_ = 0;
  std::vector<std::thread> workers_;
  std::vector<std::unique_ptr<trial_process>> graveyard_;
  /// The warm launcher (agent/warm_launch.hpp) when
  /// s_.warm_launch_client is set and it still runs. Shared: a trial's
  /// start waits for it to listen without holding mu_.
  std::shared_ptr<warm_launcher> warm_;
  /// Waits, for at most warm_launch_wait, until a launcher that is still
  /// importing the harness listens (or exits). Without mu_.
  void await_warm_launcher();
  /// The command that starts a trial's launch layer through the warm
  /// launcher; "" while it is not listening (yet, or any more): the trial
  /// starts cold. Requires mu_.
  std::string warm_command_locked();
};

} // namespace det::agent
