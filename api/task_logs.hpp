#pragma once

// The last lines of output of each task (command, notebook, shell,
// TensorBoard, generic task), kept as trial logs are (api/trial_logs.hpp:
// in memory and, with an archive set, in PostgreSQL under "task:<id>"):
// the process's output from its agent and the master's own lines
// ("resources exited successfully ..."). Written by the agent WebSocket
// sessions and the durable-event follower, read by the REST handlers:
// thread-safe.

#include "store/log_archive.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace det::api {

struct task_log_line {
  int64_t id = 0; ///< 1-based, per task, never reused
  std::string agent_id;
  std::string text;
  int64_t at_us = 0;
  /// "master" for the master's own lines, else "" (the task's output).
  std::string source;
};

class task_logs {
public:
  explicit task_logs(size_t keep_per_task = 5000) : keep_(keep_per_task) {}

  /// Lines longer than trial_logs::max_line_bytes are cut; bytes that are
  /// not UTF-8 and NULs become U+FFFD. At most 10,000 tasks are kept: the
  /// oldest task (by its first line) goes first.
  void add(const std::string& task_id, const std::string& agent_id,
           const std::vector<std::string>& lines, int64_t at_us,
           const std::string& source = "");

  /// Every line kept from now on is also saved there.
  void set_archive(std::shared_ptr<log_archive> a);
  /// Takes the archive's lines of keys "task:<id>" (load()'s order).
  void restore(const std::vector<archived_line>& lines);
  /// Drops the task's lines, here and in the archive (it was forgotten).
  void forget(const std::string& task_id);

  /// Lines of the task with id > after_id, oldest first.
  std::vector<task_log_line> since(const std::string& task_id,
                                   int64_t after_id = 0) const;

private:
  struct per_task {
    int64_t next_id = 1;
    int64_t first_at_us = 0;
    std::deque<task_log_line> lines;
  };
  size_t keep_;
  mutable std::mutex mu_;
  std::map<std::string, per_task> tasks_;
  std::shared_ptr<log_archive> archive_;
};

} // namespace det::api
