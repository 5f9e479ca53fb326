#pragma once

// Group commit: merges appends from many concurrent callers into few
// transactions. A thread of its own owns the event_store; while a batch
// commits, new requests queue, and the next batch takes them all (up to
// max_batch_events, waiting at most max_wait for more). Each caller is
// acknowledged only after its batch is durable; a conflict fails only the
// request it concerns (the store's append_many contract).
//
// Thread-safe: submit() and post() may be called from any thread.
// Callbacks run on the appender's thread and must not block. The store must
// outlive the appender and must not be used by anyone else meanwhile.

#include "store/event_store.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

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
  };

  struct statistics {
    uint64_t batches = 0;
    uint64_t requests = 0;
    uint64_t events = 0;
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

  /// Queues `req`; the future is ready after the commit or failure.
  std::future<caf::expected<append_result>> submit(append_request req);

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

  event_store& store_;
  options opts_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::deque<item> queue_;
  bool stopping_ = false;
  statistics stats_;
  std::thread thread_;
};

} // namespace det
