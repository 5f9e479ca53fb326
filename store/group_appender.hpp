#pragma once

// Group commit: merges appends from many concurrent callers into few
// transactions. A thread of its own owns the event_store; while a batch
// commits, new requests queue, and the next batch takes them all (up to
// max_batch_events, waiting at most max_wait for more). Each caller is
// acknowledged only after its batch is durable; a conflict fails only the
// request it concerns (the store's append_many contract).
//
// Callers released by a commit usually come straight back with their next
// append. A batch that starts with fewer requests than the last one
// acknowledged waits for them while they keep arriving (see fill_gap), so
// that they share the next commit instead of splitting it in two: with a
// WAL flush of a few milliseconds, a straggler that just misses a batch
// waits a whole flush for the next one.
//
// Thread-safe: submit() and post() may be called from any thread.
// Callbacks run on the appender's thread and must not block. The store must
// outlive the appender and must not be used by anyone else meanwhile.

#include "store/event_store.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace det {

class group_appender {
public:
  using callback = std::function<void(caf::expected<append_result>)>;

  struct options {
    /// A batch stops growing past this many events (one request is never
    /// split).
    size_t max_batch_events = 10000;
    /// How long a batch waits for more requests before it commits; zero
    /// commits whatever queued while the previous batch committed.
    std::chrono::microseconds max_wait{0};
    /// While fewer requests are queued than the last batch acknowledged,
    /// the next batch waits for more as long as some arrive within each
    /// fill_gap, and at most max_fill_wait or
    /// max_fill_share of the last commit's duration, whichever is
    /// shorter: the store stays idle meanwhile, so the wait is kept to a
    /// fraction of what a straggler would otherwise wait (a whole commit).
    /// Zero fill_gap commits at once.
    std::chrono::microseconds fill_gap{200};
    std::chrono::microseconds max_fill_wait{1000};
    double max_fill_share = 0.25;
  };

  struct statistics {
    uint64_t batches = 0;
    uint64_t requests = 0;
    uint64_t events = 0;
    /// Times the appender woke while filling a batch (once a batch when
    /// the last one's callers all come back within a gap).
    uint64_t fill_wakeups = 0;
  };

  group_appender(event_store& store, options opts);
  explicit group_appender(event_store& store)
      : group_appender(store, options{}) {}

  /// Commits everything already submitted, then stops the thread.
  ~group_appender();

  group_appender(const group_appender&) = delete;
  group_appender& operator=(const group_appender&) = delete;

  /// Queues `req`; `done` is called once, after the commit or failure.
  void submit(append_request req, callback done);

  /// The outcome of one submit(req), for a thread that blocks on it.
  class ticket {
  public:
    /// Blocks until the request is committed or has failed; once only.
    caf::expected<append_result> get();

  private:
    friend class group_appender;
    struct state;
    explicit ticket(std::shared_ptr<state> st) : st_(std::move(st)) {}
    std::shared_ptr<state> st_;
  };

  /// Queues `req`; its ticket is ready after the commit or failure. All
  /// tickets of a batch are woken together, by one notify_all: 64 waiters
  /// woken one by one (a promise each) kept the committing thread from
  /// its next batch for ~0.65 ms a batch on 2 cores.
  ticket submit(append_request req);

  /// Runs `fn` on the appender's thread, in order with the appends (for
  /// snapshots and reads by the store's owner).
  void post(std::function<void(event_store&)> fn);

  statistics stats() const;

private:
  struct item {
    append_request req;
    callback done;
    std::function<void(event_store&)> task;
  };

  void run();
  /// Takes queued requests into the batch (under mtx_); returns its events.
  size_t take(std::vector<append_request>& batch,
              std::vector<callback>& callbacks);

  event_store& store_;
  options opts_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::deque<item> queue_;
  /// submit() wakes the appender once this many items are queued: one
  /// while it waits for a first request, the callers still missing while
  /// it fills a batch.
  size_t wake_at_ = 1;
  bool stopping_ = false;
  statistics stats_;
  /// Where tickets wait; notified after each batch's callbacks.
  struct waiters;
  std::shared_ptr<waiters> waiters_;
  std::thread thread_;
};

} // namespace det
