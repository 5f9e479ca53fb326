#pragma once

// One thread that owns a read-only connection to the event log and runs
// queries in order (det-inspect's log views, trials' metric histories), so
// no query runs on an I/O thread or the master's. Destroying it finishes
// the queued jobs and joins the thread.

#include "store/event_store.hpp"

#include <caf/error.hpp>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace det::api {

class log_reader {
public:
  /// Gets the store, or null and why it could not be opened.
  using job = std::function<void(event_store*, const caf::error&)>;

  /// Opens the store on first use: PostgreSQL at `url`, as a reader.
  explicit log_reader(std::string url);
  ~log_reader();

  log_reader(const log_reader&) = delete;
  log_reader& operator=(const log_reader&) = delete;

  /// False when too many queries wait.
  bool submit(job j);

private:
  void run();

  std::string url_;
  std::unique_ptr<event_store> store_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<job> jobs_;
  bool stop_ = false;
  std::thread thread_;
};

} // namespace det::api
