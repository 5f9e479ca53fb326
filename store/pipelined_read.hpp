#pragma once

// Reading the log in two stages on two threads: a producer thread receives
// and parses rows, the caller's thread visits them (decode and apply), so
// the two overlap. Rows travel in chunks through a small bounded queue.
// Used by pg_event_store::read; knows nothing of PostgreSQL.

#include "store/event_store.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace det {

/// Fills `out` with the next event; sets `done` (leaving `out` unused) at
/// the end. Runs on the producer thread. `out` may be an event visited
/// before (what the visitor left of it): every member must be set, and a
/// string assigned in place reuses its storage. May throw; the exception
/// is rethrown on the caller's thread.
using event_producer =
    std::function<caf::error(recorded_event& out, bool& done)>;

/// Runs `produce` until done, visiting every event in order. When the
/// visitor fails, `on_stop` runs on the caller's thread (to cancel the
/// producer's source) and the producer is stopped at its next chunk. Returns
/// the visitor's error, else the producer's.
[[nodiscard]] caf::error pipelined_read(const event_producer& produce,
                                        const event_visitor& visit,
                                        const std::function<void()>& on_stop);

/// The same for any item type: `produce(Item& out, bool& done)` on the
/// producer thread (`out` possibly a visited item, as above),
/// `visit(Item&&)` on the caller's.
template <class Item, class Produce, class Visit>
caf::error pipelined_read_items(const Produce& produce, const Visit& visit,
                                const std::function<void()>& on_stop) {
  constexpr size_t chunk_rows = 512, max_chunks = 8;
  using chunk = std::vector<Item>;
  std::mutex mtx;
  std::condition_variable cv;
  std::deque<chunk> ready;
  // Visited chunks go back to the producer, which fills their items again
  // in place: a row's strings reuse the storage of one a few chunks back
  // instead of being allocated on one thread and freed on the other.
  std::deque<chunk> spent;
  bool done = false, stop = false;
  caf::error producer_error;
  std::exception_ptr producer_exception;
  std::thread producer{[&] {
    try {
      chunk c;
      c.reserve(chunk_rows);
      size_t filled = 0; // the items of c produced so far
      auto flush = [&] {
        c.resize(filled);
        filled = 0;
        std::unique_lock<std::mutex> lock{mtx};
        cv.wait(lock, [&] { return stop || ready.size() < max_chunks; });
        ready.push_back(std::move(c));
        c = chunk{};
        if (!spent.empty()) {
          c = std::move(spent.front());
          spent.pop_front();
        }
        cv.notify_all();
        bool go_on = !stop;
        lock.unlock();
        c.reserve(chunk_rows);
        return go_on;
      };
      for (;;) {
        if (filled == c.size())
          c.emplace_back();
        bool end = false;
        if (auto err = produce(c[filled], end)) {
          std::lock_guard<std::mutex> guard{mtx};
          producer_error = std::move(err);
          break;
        }
        if (end)
          break;
        if (++filled == chunk_rows && !flush())
          break;
      }
      if (filled > 0)
        flush();
    } catch (...) {
      std::lock_guard<std::mutex> guard{mtx};
      producer_exception = std::current_exception();
    }
    std::lock_guard<std::mutex> guard{mtx};
    done = true;
    cv.notify_all();
  }};
  caf::error visitor_error;
  for (;;) {
    chunk c;
    {
      std::unique_lock<std::mutex> lock{mtx};
      cv.wait(lock, [&] { return done || !ready.empty(); });
      if (ready.empty())
        break;
      c = std::move(ready.front());
      ready.pop_front();
      cv.notify_all();
    }
    for (auto& item : c)
      if ((visitor_error = visit(std::move(item))))
        break;
    if (!visitor_error) {
      std::lock_guard<std::mutex> guard{mtx};
      spent.push_back(std::move(c));
      continue;
    }
    on_stop();
    std::lock_guard<std::mutex> guard{mtx};
    stop = true;
    cv.notify_all();
    break;
  }
  producer.join();
  if (visitor_error)
    return visitor_error;
  if (producer_exception)
    std::rethrow_exception(producer_exception);
  return producer_error;
}

} // namespace det
