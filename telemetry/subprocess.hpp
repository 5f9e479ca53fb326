#pragma once

// Child processes for the telemetry sources (journalctl, nvidia-smi),
// started with posix_spawnp (no shell: arguments are passed as they are,
// so a cursor read from a file cannot become a command) with stdout on a
// pipe and stdin and stderr on /dev/null. Each object owns its child: the
// destructor kills it (SIGTERM) and reaps it.

#include <caf/expected.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace det::telemetry {

class subprocess {
public:
  /// errc::not_found when argv[0] cannot be found or run.
  [[nodiscard]] static caf::expected<subprocess>
  spawn(const std::vector<std::string>& argv);

  subprocess(subprocess&& other) noexcept;
  subprocess& operator=(subprocess&& other) noexcept;
  ~subprocess();

  /// The next line of its output without the newline, waiting at most
  /// `timeout`; nullopt on timeout; "" and eof() at the end of the output.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout);
  bool eof() const { return eof_; }

  /// Sends SIGTERM (idempotent).
  void terminate();
  /// Waits for the exit; the exit status (128+signal when killed).
  int wait();

private:
  subprocess() = default;
  pid_t pid_ = -1;
  int fd_ = -1;
  bool eof_ = false;
  std::string buffer_;
};

/// Runs argv to its end and returns its output, killing it after
/// `timeout`; errc::not_found when it cannot be run, errc::remote_error
/// when it exits non-zero or times out.
[[nodiscard]] caf::expected<std::string>
run_capture(const std::vector<std::string>& argv,
            std::chrono::milliseconds timeout);

} // namespace det::telemetry
