#include "store/group_appender.hpp"

namespace det {

// Where the tickets of all batches wait: one condition variable, woken
// once a batch, rather than one per ticket.
struct group_appender::waiters {
  std::mutex mtx;
  std::condition_variable cv;
};

struct group_appender::ticket::state {
  std::shared_ptr<waiters> wake;
  std::atomic<bool> ready{false};
  caf::expected<append_result> result{append_result{}};
};

caf::expected<append_result> group_appender::ticket::get() {
  auto& st = *st_;
  if (!st.ready.load(std::memory_order_acquire)) {
    std::unique_lock<std::mutex> lock{st.wake->mtx};
    st.wake->cv.wait(
        lock, [&st] { return st.ready.load(std::memory_order_acquire); });
  }
  return std::move(st.result);
}

group_appender::group_appender(event_store& store, options opts)
    : store_(store), opts_(opts), waiters_(std::make_shared<waiters>()) {
  thread_ = std::thread([this] { run(); });
}

group_appender::~group_appender() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void group_appender::submit(append_request req, callback done) {
  std::lock_guard<std::mutex> guard{mtx_};
  queue_.push_back(item{std::move(req), std::move(done), nullptr});
  // Under the lock: a wake decided against one wait must not land in the
  // next (a fill that then wakes for nothing).
  if (queue_.size() >= wake_at_)
    cv_.notify_one();
}

group_appender::ticket group_appender::submit(append_request req) {
  auto st = std::make_shared<ticket::state>();
  // Shared: a ticket may be waited on after the appender has gone.
  st->wake = waiters_;
  submit(std::move(req), [st](caf::expected<append_result> res) {
    st->result = std::move(res);
    st->ready.store(true, std::memory_order_release);
  });
  return ticket{std::move(st)};
}

void group_appender::post(std::function<void(event_store&)> fn) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    queue_.push_back(item{{}, nullptr, std::move(fn)});
  }
  cv_.notify_one();
}

group_appender::statistics group_appender::stats() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return stats_;
}

size_t group_appender::take(std::vector<append_request>& batch,
                            std::vector<callback>& callbacks) {
  size_t events = 0;
  for (auto& r : batch)
    events += r.events.size();
  while (!queue_.empty() && !queue_.front().task
         && (batch.empty()
             || events + queue_.front().req.events.size()
                    <= opts_.max_batch_events)) {
    events += queue_.front().req.events.size();
    batch.push_back(std::move(queue_.front().req));
    callbacks.push_back(std::move(queue_.front().done));
    queue_.pop_front();
  }
  return events;
}

void group_appender::run() {
  using clock = std::chrono::steady_clock;
  std::vector<append_request> batch;
  std::vector<callback> callbacks;
  // Requests the last batch acknowledged: the callers that may be on their
  // way back.
  size_t last_acked = 0;
  clock::duration last_commit{};
  for (;;) {
    std::function<void(event_store&)> task;
    {
      std::unique_lock<std::mutex> lock{mtx_};
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stopping, and everything submitted is done
      if (queue_.front().task) {
        task = std::move(queue_.front().task);
        queue_.pop_front();
      } else {
        auto events = take(batch, callbacks);
        if (opts_.max_wait.count() > 0 && events < opts_.max_batch_events
            && !stopping_) {
          auto deadline = clock::now() + opts_.max_wait;
          while (events < opts_.max_batch_events && !stopping_
                 && cv_.wait_until(lock, deadline) != std::cv_status::timeout)
            events = take(batch, callbacks);
          take(batch, callbacks);
        }
        if (opts_.fill_gap.count() > 0) {
          auto share = std::chrono::duration_cast<clock::duration>(
              last_commit * opts_.max_fill_share);
          auto deadline =
              clock::now()
              + std::min<clock::duration>(opts_.max_fill_wait, share);
          // Woken once the rest of the last batch's callers are back, or
          // after each gap to see whether anyone came: a wake-up per
          // arrival (64 a batch) took the cores the callers were coming
          // back on.
          while (batch.size() < last_acked && events < opts_.max_batch_events
                 && !stopping_) {
            wake_at_ = last_acked - batch.size();
            auto until = std::min(deadline, clock::now() + opts_.fill_gap);
            bool waited = false;
            cv_.wait_until(lock, until, [this, &waited] {
              if (waited)
                ++stats_.fill_wakeups; // woken (notified or timed out)
              waited = true;
              return stopping_ || queue_.size() >= wake_at_;
            });
            auto before = batch.size();
            events = take(batch, callbacks);
            if (batch.size() == before || clock::now() >= deadline)
              break; // nobody came within the gap, a posted task or a
                     // request too big waits next, or time is up
          }
          wake_at_ = 1;
        }
      }
    }
    if (task) {
      task(store_);
      continue;
    }
    auto started = clock::now();
    auto results = store_.append_many(batch);
    last_commit = clock::now() - started;
    {
      std::lock_guard<std::mutex> guard{mtx_};
      ++stats_.batches;
      stats_.requests += batch.size();
      for (auto& r : batch)
        stats_.events += r.events.size();
    }
    for (size_t i = 0; i < callbacks.size(); ++i)
      callbacks[i](std::move(results[i]));
    {
      // Taken so that a ticket between its check and its wait is not
      // missed.
      std::lock_guard<std::mutex> guard{waiters_->mtx};
    }
    waiters_->cv.notify_all();
    last_acked = batch.size();
    batch.clear();
    callbacks.clear();
  }
}

} // namespace det
