#pragma once

// A child process with its stdin and stdout on pipes, for tests that need
// several real processes (two writers, a writer killed mid-append). Lines
// are read with a deadline so a hung child fails the test instead of
// hanging it.

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace det::test {

class child_process {
public:
  /// Starts argv[0] with the given arguments.
  explicit child_process(const std::vector<std::string>& argv);
  ~child_process();

  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  /// The next line of the child's stdout, without the newline; nothing at
  /// end of output or when `timeout` passes first.
  std::optional<std::string>
  read_line(std::chrono::milliseconds timeout = std::chrono::seconds{30});

  /// Closes the child's stdin.
  void close_stdin();

  /// Sends `sig` to the child.
  void kill(int sig);

  /// Waits for the child to exit; its exit code, or 128 + signal.
  int wait();

  pid_t pid() const { return pid_; }

private:
  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  std::string buf_;
  bool eof_ = false;
  std::optional<int> status_;
};

} // namespace det::test
