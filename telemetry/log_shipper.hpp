#pragma once

// Ships log events to one CloudWatch Logs stream (one per instance) from a
// thread of its own, so that logging never waits on CloudWatch.
//
// Producers:
//   - offer(): never blocks. When the queue holds max_queued events the
//     event is dropped and counted (stats().dropped_queue_full). The
//     program's own log lines come this way: a slow or absent CloudWatch
//     must not stall the master.
//   - push_wait(): waits for room (or until `cancel`). journald comes this
//     way: the journal itself is the spool, so its reader simply stops
//     reading while the queue is full and nothing from journald is lost.
//
// pump() is one step of the shipper, pure but for the injected clients:
// create the group and stream if not done yet, take the next batch
// (policy/log_batch.hpp), send it, and on success pop it and save the
// journald cursor of its last event. On failure the batch stays at the
// front of the queue and pump() returns the backoff before the next try
// (full-jitter exponential, util/backoff). A ResourceNotFoundException (the
// group or stream was deleted) makes it create them again; a batch
// CloudWatch refuses as invalid (a 4xx that is not throttling, auth or
// not-found) is dropped and counted, so one bad event cannot stop the
// stream forever. Everything else (throttling, 5xx, no connection, auth)
// is retried without end, keeping the batch.
//
// Threads: offer/push_wait from any thread; pump() from one thread at a
// time (the shipper's own after start(), a test's before).

#include "aws/logs_client.hpp"
#include "policy/log_batch.hpp"
#include "telemetry/cursor_file.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace det::telemetry {

struct log_shipper_options {
  std::string group = "/determined/determined/journald";
  std::string stream;
  size_t max_queued = 50'000;
  policy::log_batch_limits limits;
  /// How long events gather before a batch that is not full goes out.
  std::chrono::milliseconds flush_interval{2'000};
  std::chrono::milliseconds backoff_initial{500};
  std::chrono::milliseconds backoff_max{60'000};
  /// Wall clock, milliseconds since the epoch.
  std::function<int64_t()> now_ms;
  /// Uniform in [0, 1): the backoff's jitter.
  std::function<double()> uniform01;
};

struct log_shipper_stats {
  int64_t events_sent = 0;
  int64_t calls_ok = 0;
  int64_t calls_failed = 0;
  int64_t dropped_queue_full = 0;
  int64_t dropped_too_old = 0;
  int64_t dropped_invalid = 0;
  /// Taken by CloudWatch but reported in rejectedLogEventsInfo.
  int64_t rejected = 0;
  int64_t restamped_future = 0;
  int64_t truncated = 0;
  size_t queued = 0;
};

class log_shipper {
public:
  log_shipper(log_shipper_options opts,
              std::shared_ptr<aws::logs_client> client,
              std::shared_ptr<cursor_store> cursor);
  ~log_shipper();
  log_shipper(const log_shipper&) = delete;
  log_shipper& operator=(const log_shipper&) = delete;

  /// False (dropped, counted) when the queue is full.
  bool offer(policy::queued_log_event ev);
  /// Waits for room; false when `cancel` became true first.
  bool push_wait(policy::queued_log_event ev, const std::atomic<bool>& cancel);

  /// One step as described above; the wait before the next step (zero when
  /// more is ready to go at once).
  std::chrono::milliseconds pump();

  /// Runs pump() on a thread of its own until stop().
  void start();
  /// Stops the thread after trying, for at most `drain`, to send what is
  /// queued (what is left is lost for own lines; journald's is read again
  /// after a restart from the saved cursor).
  void stop(std::chrono::milliseconds drain = std::chrono::seconds{5});

  log_shipper_stats stats() const;
  /// The last cursor saved (after an accepted batch).
  std::string saved_cursor() const;

private:
  std::chrono::milliseconds backoff();
  void run();

  log_shipper_options opts_;
  std::shared_ptr<aws::logs_client> client_;
  std::shared_ptr<cursor_store> cursor_;
  mutable std::mutex mtx_;
  std::condition_variable changed_;
  std::deque<policy::queued_log_event> queue_;
  log_shipper_stats stats_;
  std::string saved_cursor_;
  bool ready_ = false; ///< group and stream created
  int failures_ = 0;   ///< in a row
  bool stopping_ = false;
  std::chrono::steady_clock::time_point drain_until_{};
  std::thread thread_;
};

} // namespace det::telemetry
