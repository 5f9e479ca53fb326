#pragma once

// The last lines of output of each trial (the log stream of `det trial
// logs`), in memory and, with an archive set, kept in PostgreSQL
// (store/log_archive.hpp, key "trial:<id>") so that a restarted master
// restores them. Written by the agent WebSocket sessions (server I/O
// threads) and read by the REST handlers: thread-safe.

#include "store/log_archive.hpp"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace det::api {

struct log_line {
  int64_t id = 0; ///< 1-based, per trial, never reused
  int64_t trial_id = 0;
  std::string agent_id;
  std::string text;
  int64_t at_us = 0;
};

class trial_logs {
public:
  explicit trial_logs(size_t keep_per_trial = 1000) : keep_(keep_per_trial) {}

  /// A longer line is cut; bytes that are not UTF-8 become U+FFFD. A NUL
  /// is kept in what is served, and is U+FFFD in what the observer sees.
  static constexpr size_t max_line_bytes = 16384;

  void add(int64_t trial_id, const std::string& agent_id,
           const std::vector<std::string>& lines, int64_t at_us);

  /// Called after add() (outside the lock, on the adding thread) with the
  /// lines as kept: webhooks' TASK_LOG patterns (api/webhook_runtime.hpp).
  using observer =
      std::function<void(int64_t trial_id, const std::string& agent_id,
                         const std::vector<std::string>& lines)>;
  void set_observer(observer o);
  /// Every line kept from now on is also saved there; erase() forgets.
  void set_archive(std::shared_ptr<log_archive> a);
  /// Takes the archive's lines of keys "trial:<id>" (load()'s order): each
  /// trial's next line continues after its last.
  void restore(const std::vector<archived_line>& lines);
  /// Drops every line of these trials (their log retention ran out);
  /// returns how many lines went.
  size_t erase(const std::vector<int64_t>& trial_ids);

  /// Lines of the trial with id > after_id, oldest first.
  std::vector<log_line> since(int64_t trial_id, int64_t after_id = 0) const;

private:
  struct per_trial {
    int64_t next_id = 1;
    std::deque<log_line> lines;
  };
  size_t keep_;
  mutable std::mutex mu_;
  observer observer_;
  std::shared_ptr<log_archive> archive_;
  std::map<int64_t, per_trial> trials_;
};

} // namespace det::api
