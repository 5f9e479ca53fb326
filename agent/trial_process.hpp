#pragma once

// One trial process: `/bin/sh -c COMMAND` in its own process group
// (setpgid), under a trial_supervisor that kills the group if det-agent
// dies, in a working directory, with extra environment variables on top
// of the allow-listed part of the agent's (trial_environment_allowed). Stdout
// and stderr share one pipe; output is split into lines and handed to on_lines
// in batches (at most `batch_lines` lines, at least every `flush_interval`
// while output is waiting). When the shell exits, whatever is left of its
// process group is killed, the last lines are delivered (what a process
// outside the group keeps writing is given up after orphan_output_wait),
// then on_exit runs once with the exit code (128+N for signal N).
//
// Owns two threads (pipe reader, waiter) and, after kill(), a third;
// callbacks run on them, never under a lock of this class, and must not
// destroy the trial_process. The destructor kills the group with SIGKILL
// and joins every thread.

#include <caf/expected.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace det::agent {

struct process_spec {
  std::string command;                    ///< run as /bin/sh -c command
  std::string work_dir;                   ///< must exist
  std::map<std::string, std::string> env; ///< added to (or replacing) ours
};

/// Whether the agent's environment variable `name` is passed on to trials:
/// the process basics (PATH, HOME, USER, locale, TZ, TMPDIR), the Python
/// and CUDA set-up (PYTHONPATH, VIRTUAL_ENV, PYENV_*, CONDA_*, NVIDIA_*,
/// CUDA_*, LD_LIBRARY_PATH). Everything else, above all DET_AGENT_TOKEN,
/// AWS_* credentials and database settings, stays with the agent.
[[nodiscard]] bool trial_environment_allowed(std::string_view name);

/// The part of this process's environment trial_environment_allowed lets
/// through: what every trial starts with.
[[nodiscard]] std::map<std::string, std::string> trial_base_environment();

struct process_options {
  size_t batch_lines = 100;
  std::chrono::milliseconds flush_interval{200};
  std::chrono::milliseconds kill_grace{std::chrono::seconds{10}};
  /// After the entrypoint exits, how long what it left running in its
  /// group may still write before the group is killed (upstream's
  /// DET_LOG_WAIT_TIME: a command's background output is kept). The exit
  /// is reported after that, so its output comes first. 0: at once.
  std::chrono::milliseconds log_wait{0};
  /// After the group is killed, how long the pipe may stay open before
  /// the output is given up: a process outside the group (one the trial
  /// moved to a session of its own, such as a daemon) can hold the pipe
  /// for ever, and the exit must still be reported.
  std::chrono::milliseconds orphan_output_wait{std::chrono::seconds{5}};
};

/// A task's log_wait: DET_LOG_WAIT_TIME of its environment in seconds (0 to
/// 3600), else upstream's 30 s.
[[nodiscard]] std::chrono::milliseconds
log_wait_of(const std::map<std::string, std::string>& env);

struct process_callbacks {
  std::function<void(std::vector<std::string> lines)> on_lines;
  std::function<void(int exit_code)> on_exit;
};

class trial_process {
public:
  /// Forks and execs. Fails with errc::remote_error when pipe() or fork()
  /// fails; a command that cannot run exits 127 like in a shell.
  [[nodiscard]] static caf::expected<std::unique_ptr<trial_process>>
  start(const process_spec& spec, process_callbacks cb,
        process_options opts = {});

  ~trial_process();
  trial_process(const trial_process&) = delete;
  trial_process& operator=(const trial_process&) = delete;

  /// SIGTERM to the group, SIGKILL after kill_grace unless it has exited
  /// by then. Idempotent; does nothing once exited.
  void kill();

  /// Waits until on_exit has returned, up to `timeout`; true if it has.
  bool wait_for(std::chrono::milliseconds timeout);

  /// The exit code once exited.
  [[nodiscard]] std::optional<int> exit_code() const;

  [[nodiscard]] pid_t pid() const { return pid_; }

private:
  trial_process(pid_t pid, int out_fd, process_callbacks cb,
                process_options opts);
  void read_output();
  void wait_exit();

  pid_t pid_;
  int out_fd_;
  process_callbacks cb_;
  process_options opts_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::optional<int> exit_code_;
  bool exited_ = false; ///< on_exit has returned
  bool kill_requested_ = false;
  bool output_done_ = false; ///< the pipe closed: nobody writes any more
  /// The waiter gave up the output: the reader stops once nothing is
  /// waiting to be read.
  bool output_abandoned_ = false;
  std::thread reader_;
  std::thread waiter_;
  std::thread killer_;
};

} // namespace det::agent
