#pragma once

// Helpers shared by the aws/ tests: running the python helpers next to this
// file, and child processes (fake IMDS) that live as long as a fixture.

#include <string>
#include <sys/types.h>
#include <vector>

namespace det::aws::test {

/// tests/aws/<name>: the python helpers.
std::string helper(const std::string& name);

struct command_result {
  int status = -1;
  std::string out;
};

/// Runs argv (no shell interpretation of the arguments), captures stdout.
command_result run_command(const std::vector<std::string>& argv);

/// The moto URL the moto_server fixture wrote (DET_TEST_MOTO_URL, or the
/// file named by DET_TEST_MOTO_URL_FILE); "" when neither is set.
std::string moto_url();

/// A child process with its stdout on a pipe; killed (SIGTERM) and reaped
/// when destroyed.
class child_process {
public:
  explicit child_process(const std::vector<std::string>& argv);
  ~child_process();
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  /// The next line the child printed, waiting at most `timeout_ms`; "" on
  /// timeout or end of output.
  std::string read_line(int timeout_ms);

  pid_t pid() const { return pid_; }

private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string buffer_;
};

} // namespace det::aws::test
