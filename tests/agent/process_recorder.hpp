#pragma once

// What the agent's process tests share: a recorder of a trial_process's
// lines and exit, and a start() that runs a command under it. Waits are
// bounded and await an event; nothing sleeps to let things happen.

#include "agent/trial_process.hpp"
#include "messages/errc.hpp"
#include "tests/support/proc_state.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace det::test {

using namespace std::chrono_literals;

/// Collects a process's output and exit code; waits for conditions on them.
struct recorder {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> lines;
  std::vector<size_t> batch_sizes;
  std::optional<int> code;
  int exits = 0;

  agent::process_callbacks callbacks() {
    return {[this](std::vector<std::string> ls) {
              std::lock_guard<std::mutex> g{mu};
              batch_sizes.push_back(ls.size());
              for (auto& l : ls)
                lines.push_back(l);
              cv.notify_all();
            },
            [this](int c) {
              std::lock_guard<std::mutex> g{mu};
              code = c;
              ++exits;
              cv.notify_all();
            }};
  }

  bool wait_line(const std::string& text) {
    std::unique_lock<std::mutex> l{mu};
    return cv.wait_for(l, 10s, [&] {
      return std::find(lines.begin(), lines.end(), text) != lines.end();
    });
  }
};

inline std::unique_ptr<agent::trial_process>
start(const std::string& cmd, recorder& r, agent::process_options opts = {},
      agent::process_spec spec = {}) {
  spec.command = cmd;
  if (spec.work_dir.empty())
    spec.work_dir = std::filesystem::temp_directory_path().string();
  auto p = agent::trial_process::start(spec, r.callbacks(), opts);
  EXPECT_TRUE(p) << det::render(p.error());
  return p ? std::move(*p) : nullptr;
}

/// Whether `pid`, a grandchild in a killed group, is gone within 5 s. It
/// closes its files (the pipe's end of file) a moment before it becomes a
/// zombie, and a process that is not our child cannot be waited for: it
/// is looked at every 10 ms.
inline bool gone_soon(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    if (dead_or_zombie(pid))
      return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

/// The line of `r` that starts with `prefix`, without it ("" if none).
inline std::string line_after(recorder& r, const std::string& prefix) {
  std::lock_guard<std::mutex> g{r.mu};
  for (const auto& l : r.lines)
    if (l.rfind(prefix, 0) == 0)
      return l.substr(prefix.size());
  return "";
}

} // namespace det::test
