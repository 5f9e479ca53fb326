#pragma once

// Child processes of the master: det-agent "instances" of the local
// provider and `tar` for model definitions. POSIX only. start() does not
// block (fork + exec); run() blocks until the child ends, so call it only
// from a thread that may block (the detached model-definition actor).

#include <caf/expected.hpp>

#include <string>
#include <sys/types.h>
#include <vector>

namespace det::provision {

struct process_spec {
  std::vector<std::string> argv; ///< argv[0] is looked up on PATH
  std::string cwd;               ///< "" = the master's
  std::string output_file;       ///< stdout+stderr appended; "" = /dev/null
  bool new_session = true;       ///< own process group, for kill(-pgid)
  /// Added to (or replacing in) the master's environment, "NAME=value".
  std::vector<std::string> env = {};
};

/// Starts the process; its pid. errc::remote_error when fork fails or the
/// program cannot be executed (reported through a close-on-exec pipe).
[[nodiscard]] caf::expected<pid_t> start_process(const process_spec& spec);

/// Starts and waits; the exit code (128+N for signal N).
[[nodiscard]] caf::expected<int> run_process(const process_spec& spec);

/// Non-blocking reap: the exit code if `pid` ended, -1 if still running,
/// -2 if it is not our child (already reaped or never ours).
int try_reap(pid_t pid);

} // namespace det::provision
