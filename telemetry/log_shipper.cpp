#include "telemetry/log_shipper.hpp"

#include "aws/aws_error.hpp"
#include "util/backoff.hpp"

namespace det::telemetry {

using namespace std::chrono;

log_shipper::log_shipper(log_shipper_options opts,
                         std::shared_ptr<aws::logs_client> client,
                         std::shared_ptr<cursor_store> cursor)
    : opts_(std::move(opts)), client_(std::move(client)),
      cursor_(std::move(cursor)) {
  if (!opts_.now_ms)
    opts_.now_ms = [] {
      return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
          .count();
    };
  if (!opts_.uniform01)
    opts_.uniform01 = [] { return 0.5; };
}

log_shipper::~log_shipper() {
  stop(milliseconds{0});
}

bool log_shipper::offer(policy::queued_log_event ev) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (queue_.size() >= opts_.max_queued) {
    ++stats_.dropped_queue_full;
    return false;
  }
  queue_.push_back(std::move(ev));
  changed_.notify_all();
  return true;
}

bool log_shipper::push_wait(policy::queued_log_event ev,
                            const std::atomic<bool>& cancel) {
  std::unique_lock<std::mutex> lock{mtx_};
  while (queue_.size() >= opts_.max_queued) {
    if (cancel.load())
      return false;
    changed_.wait_for(lock, milliseconds{100});
  }
  queue_.push_back(std::move(ev));
  changed_.notify_all();
  return true;
}

milliseconds log_shipper::backoff() {
  ++failures_;
  ++stats_.calls_failed;
  auto d =
      util::backoff_delay(static_cast<double>(opts_.backoff_initial.count()),
                          2.0, static_cast<double>(opts_.backoff_max.count()),
                          failures_, 0.5, opts_.uniform01());
  return milliseconds{static_cast<int64_t>(d)};
}

milliseconds log_shipper::pump() {
  if (!ready_) {
    if (auto err = client_->create_log_group(opts_.group)) {
      std::lock_guard<std::mutex> guard{mtx_};
      return backoff();
    }
    if (auto err = client_->create_log_stream(opts_.group, opts_.stream)) {
      std::lock_guard<std::mutex> guard{mtx_};
      return backoff();
    }
    ready_ = true;
  }
  policy::log_batch batch;
  bool cut = false; // a limit ended the batch: more is ready at once
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (queue_.empty())
      return opts_.flush_interval;
    batch = policy::next_log_batch(queue_, opts_.now_ms(), opts_.limits);
    cut = batch.consumed < queue_.size();
  }
  bool drop_batch = false;
  aws::put_log_events_result res;
  if (!batch.events.empty()) {
    std::vector<aws::cloudwatch_log_event> events;
    events.reserve(batch.events.size());
    for (auto& e : batch.events)
      events.push_back({e.timestamp_ms, std::move(e.message)});
    auto put = client_->put_log_events(opts_.group, opts_.stream, events);
    if (!put) {
      auto info = aws::aws_error_of(put.error());
      if (info.code == "ResourceNotFoundException")
        ready_ = false;
      else if (info.kind == aws::aws_error_kind::bad_request)
        drop_batch = true;
      if (!drop_batch) {
        std::lock_guard<std::mutex> guard{mtx_};
        return backoff();
      }
    } else {
      res = *put;
    }
  }
  std::lock_guard<std::mutex> guard{mtx_};
  // Only this thread pops, so the front is still the batch.
  queue_.erase(queue_.begin(),
               queue_.begin() + static_cast<ptrdiff_t>(batch.consumed));
  changed_.notify_all();
  failures_ = 0;
  if (drop_batch) {
    ++stats_.calls_failed;
    stats_.dropped_invalid += static_cast<int64_t>(batch.events.size());
  } else if (!batch.events.empty()) {
    ++stats_.calls_ok;
    stats_.events_sent += static_cast<int64_t>(batch.events.size());
  }
  stats_.rejected += res.too_old + res.too_new + res.expired;
  stats_.dropped_too_old += static_cast<int64_t>(batch.dropped_too_old);
  stats_.restamped_future += static_cast<int64_t>(batch.restamped_future);
  stats_.truncated += static_cast<int64_t>(batch.truncated);
  if (!batch.cursor.empty()) {
    // A cursor that cannot be saved is retried with the next batch; a
    // restart before then resends this batch (at least once, never lost).
    if (!cursor_ || !cursor_->save(batch.cursor))
      saved_cursor_ = batch.cursor;
  }
  bool full = queue_.size() >= opts_.limits.max_events;
  return full || cut || stopping_ ? milliseconds{0} : opts_.flush_interval;
}

void log_shipper::start() {
  thread_ = std::thread{[this] { run(); }};
}

void log_shipper::run() {
  std::unique_lock<std::mutex> lock{mtx_};
  for (;;) {
    if (stopping_ && (queue_.empty() || steady_clock::now() >= drain_until_))
      return;
    if (queue_.empty()) {
      changed_.wait(lock);
      continue;
    }
    lock.unlock();
    auto wait = pump();
    lock.lock();
    if (wait.count() > 0) {
      auto until = steady_clock::now() + wait;
      if (stopping_)
        until = std::min(until, drain_until_);
      changed_.wait_until(lock, until, [&] {
        return (stopping_ && steady_clock::now() >= drain_until_)
               || queue_.size() >= opts_.limits.max_events;
      });
    }
  }
}

void log_shipper::stop(milliseconds drain) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (stopping_ && !thread_.joinable())
      return;
    stopping_ = true;
    drain_until_ = steady_clock::now() + drain;
    changed_.notify_all();
  }
  if (thread_.joinable())
    thread_.join();
}

log_shipper_stats log_shipper::stats() const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto s = stats_;
  s.queued = queue_.size();
  return s;
}

std::string log_shipper::saved_cursor() const {
  std::lock_guard<std::mutex> guard{mtx_};
  return saved_cursor_;
}

} // namespace det::telemetry
