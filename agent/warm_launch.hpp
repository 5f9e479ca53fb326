#pragma once

// A warm start for the harness's launch layer. A trial whose harness
// imports runs `python3 launch.py` (agent/harness_files.hpp), and that
// interpreter spends most of its start importing the determined package
// and what it needs (requests, urllib3, certifi, psutil, ...): about
// 0.3 s of CPU per trial, more than the rest of a short trial's start.
//
// The agent keeps one Python process, the warm launcher, that has
// imported those modules once and then forgets the determined package
// itself (it reads its environment when imported, so each trial imports
// it again). That import runs the compiled code the launcher kept of each
// module (read again only when its file changed), and takes the REST
// bindings module, definitions only, as the launcher loaded it when the
// trial's path finds the same harness. A trial's command execs
// `det-agent --warm-launch SOCKET` (the client), which hands the server
// its stdin/stdout/stderr, working folder, process group and environment
// over a Unix socket; the server forks a child that joins the trial's
// process group, takes those, imports the trial's sitecustomize and runs
// launch.py as `python3 launch.py` would; the client waits for the
// child's exit code from the server and exits with it (128+N for signal
// N). The trial's process group, its kill and its supervisor are as
// before: the child is in the group.
//
// The launch layer then starts the trial's entrypoint. When that is a
// plain `python3 SCRIPT.py ARG...` (words without shell syntax, the file
// present), the child's subprocess.Popen asks the server for it too: the
// server forks the script as a sibling in the trial's group, with what
// its own loading left of the site packages forgotten (the script imports
// them afresh, as a cold start would; the standard library stays loaded),
// and the launch layer waits for it and passes signals to it as Popen
// would. The script ends through the interpreter's own end (threads
// joined, atexit run) and the launch layer sees its code as Popen's
// returncode (-N for signal N). A folder on the script's sys.path that
// holds a module the server has loaded makes it start cold, as does
// anything else: `sh -c` as before.
//
// The warm start applies only when it is equivalent: the request's PATH
// and every PYTHON*, PYENV*, VIRTUAL_ENV and CONDA* variable (but
// PYTHONPATH, which the child applies) equal the server's. Otherwise, and
// whenever the server is absent, busy dying or refuses, the client execs
// the cold command `python3 "$DET_RUN_DIR/launch.py"` itself: a trial
// never fails for want of a warm launcher.
//
// The server gets only the trial-allowed part of the agent's environment
// (agent/trial_process.hpp trial_environment_allowed): no agent token,
// cloud credential or database setting. The socket lives in a 0700
// folder of its own under $TMPDIR (or /tmp).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <sys/types.h>

namespace det::agent {

/// The server's Python source (written to its folder as warm_launch.py).
const char* warm_launch_server_source();

/// The client (det-agent --warm-launch SOCKET): the launch layer's exit
/// code, or nothing when the server cannot take this trial (absent,
/// refused); the caller then runs the cold command.
[[nodiscard]] std::optional<int> warm_launch_client(const std::string& socket);

/// The client's whole job as det-agent's main: the exit code of the warm
/// launch, or (never returning) an exec of the cold command.
[[nodiscard]] int warm_launch_main(const std::string& socket);

/// The trial command that starts the launch layer through `agent_binary
/// --warm-launch socket` (the cold command's shape: python3 missing from
/// PATH runs the entrypoint as a shell command).
[[nodiscard]] std::string warm_trial_command(const std::string& agent_binary,
                                             const std::string& socket);

/// The client's side of the socket (also for tests of the server).
namespace wire {
/// A connection to the launcher's socket, or -1.
[[nodiscard]] int connect_to(const std::string& socket);
/// A request's header, the body's size, with `fds` attached (SCM_RIGHTS):
/// the trial's stdin, stdout and stderr. Whether it went.
[[nodiscard]] bool send_header(int sock, uint32_t body_size,
                               const int (&fds)[3]);
} // namespace wire

/// Removes the folders of launchers whose agent is gone from `tmp`: a
/// `det-warm-*` directory (not a link) of this user, last changed at least
/// `min_age` ago, that no live agent holds locked. An agent killed with
/// SIGKILL cannot remove its own; the next launcher started in the same
/// temporary folder does (start() calls this with a minute, which spares a
/// folder another agent is making right now). Returns how many it removed.
int remove_stale_launcher_dirs(const std::string& tmp,
                               std::chrono::seconds min_age);

/// One running server, owned by the agent. `wait_ready` may be called from
/// any thread; the rest from the agent's trial-start path under its lock.
class warm_launcher {
public:
  /// Starts `python3 warm_launch.py SOCKET` (python3 from env's PATH)
  /// with exactly `env`, in a process group of its own; it is killed when
  /// the calling thread dies (PR_SET_PDEATHSIG: call it from a thread that
  /// lives as long as the process). Nothing when python3, the folder, the
  /// file or the fork cannot be had (the agent then starts trials cold).
  [[nodiscard]] static std::unique_ptr<warm_launcher>
  start(const std::map<std::string, std::string>& env);

  ~warm_launcher(); ///< kills the server's group, removes its folder
  warm_launcher(const warm_launcher&) = delete;
  warm_launcher& operator=(const warm_launcher&) = delete;

  /// Waits (at most `limit`) until the server listens, or exits: whether
  /// it listens. A server that cannot import the harness exits at once.
  /// While another thread waits, a call waits its turn within its own
  /// limit (with none, it answers at once: not yet).
  [[nodiscard]] bool wait_ready(std::chrono::milliseconds limit);

  /// Whether the server still runs (reaps it when it has exited).
  [[nodiscard]] bool alive();

  [[nodiscard]] const std::string& socket() const { return socket_; }
  [[nodiscard]] pid_t pid() const { return pid_; }

private:
  warm_launcher() = default;
  std::string dir_, socket_;
  int dir_lock_ = -1; ///< the folder, flock()ed while this launcher lives
  pid_t pid_ = -1;
  std::timed_mutex reading_; ///< held while one thread reads ready_fd_
  int ready_fd_ = -1;        ///< the server's stdout: "ready\n" once it listens
  std::string ready_line_;   ///< what was read of it so far
  std::atomic<bool> ready_{false};
  bool exited_ = false;
};

} // namespace det::agent
