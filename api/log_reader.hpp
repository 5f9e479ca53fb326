#pragma once

// A thread with its own read-only connection to the event log, for the
// routes that read the log itself rather than the state (the inspect
// routes, metric histories, trial timelines): queries run in order, off
// the I/O threads and the actors. The connection is opened at the first
// query and kept; submit() refuses past 32 queued queries.

#include "store/pg_event_store.hpp"

#include <caf/error.hpp>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace det::api {

/// One thread that owns a read-only store connection and runs log queries
/// in order. Destroying it finishes the queued jobs and joins the thread.
class log_reader {
public:
  /// Gets the store, or null and why it could not be opened.
  using job = std::function<void(event_store*, const caf::error&)>;

  explicit log_reader(std::string url)
      : url_(std::move(url)), thread_([this] { run(); }) {}

  ~log_reader() {
    {
      std::lock_guard<std::mutex> g{mu_};
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

  /// False when too many queries wait.
  bool submit(job j) {
    {
      std::lock_guard<std::mutex> g{mu_};
      if (jobs_.size() >= 32)
        return false;
      jobs_.push_back(std::move(j));
    }
    cv_.notify_one();
    return true;
  }

private:
  void run() {
    for (;;) {
      job j;
      {
        std::unique_lock<std::mutex> g{mu_};
        cv_.wait(g, [this] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty())
          return;
        j = std::move(jobs_.front());
        jobs_.pop_front();
      }
      if (!store_) {
        pg_store_options o;
        o.url = url_;
        o.lock = lock_policy::reader;
        o.migrate = false;
        auto s = pg_event_store::open(o);
        if (!s) {
          j(nullptr, s.error());
          continue;
        }
        store_ = std::move(*s);
      }
      j(store_.get(), caf::error{});
    }
  }

  std::string url_;
  std::unique_ptr<pg_event_store> store_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<job> jobs_;
  bool stop_ = false;
  std::thread thread_;
};

} // namespace det::api
