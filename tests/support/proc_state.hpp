#pragma once

// A process's state letter from /proc/<pid>/stat, for tests that check
// whether a child they started (or its children) still runs.

#include <fstream>
#include <string>
#include <sys/types.h>

namespace det::test {

/// The state letter of `pid` (R, S, D, Z, X, ...), or '\0' when there is no
/// such process.
inline char proc_state(pid_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/stat"};
  std::string stat;
  if (!std::getline(in, stat))
    return '\0';
  // The command name (in parentheses) may hold spaces and ')': the state
  // follows the last ')'.
  auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() ? stat[close + 2]
                                                               : '\0';
}

/// True when `pid` is gone or a zombie (state Z or X).
inline bool dead_or_zombie(pid_t pid) {
  char s = proc_state(pid);
  return s == '\0' || s == 'Z' || s == 'X';
}

} // namespace det::test
