#include "telemetry/metric_publisher.hpp"

#include "aws/aws_error.hpp"
#include "messages/errc.hpp"
#include "util/log.hpp"

namespace det::telemetry {

using namespace std::chrono;

namespace {
constexpr int64_t two_weeks_ms = 14LL * 24 * 3600 * 1000;
} // namespace

metric_publisher::metric_publisher(
    metric_publisher_options opts,
    std::shared_ptr<aws::cloudwatch_client> client, collect_fn collect)
    : opts_(std::move(opts)), client_(std::move(client)),
      collect_(std::move(collect)) {
  if (!opts_.now_ms)
    opts_.now_ms = [] {
      return duration_cast<milliseconds>(system_clock::now().time_since_epoch())
          .count();
    };
}

metric_publisher::~metric_publisher() {
  stop();
}

bool metric_publisher::round() {
  auto now = opts_.now_ms();
  auto fresh = collect_(now);
  std::vector<aws::metric_datum> backlog;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    for (auto& d : fresh)
      pending_.push_back(std::move(d));
    while (pending_.size() > opts_.max_pending) {
      pending_.pop_front();
      ++stats_.dropped_backlog;
    }
    // Older than two weeks: CloudWatch refuses them.
    while (!pending_.empty()
           && pending_.front().timestamp_ms < now - two_weeks_ms + 60'000) {
      pending_.pop_front();
      ++stats_.dropped_too_old;
    }
    backlog.assign(pending_.begin(), pending_.end());
  }
  auto calls = aws::split_metric_data(opts_.name_space, backlog, opts_.limits);
  size_t sent = 0;
  caf::error failure;
  for (const auto& call : calls) {
    if (auto err = client_->put_metric_data(opts_.name_space, call)) {
      if (aws::aws_error_of(err).kind == aws::aws_error_kind::bad_request) {
        // Refused as invalid: it would be refused again; drop it.
        std::lock_guard<std::mutex> guard{mtx_};
        stats_.dropped_invalid += static_cast<int64_t>(call.size());
        ++stats_.calls_failed;
        sent += call.size();
        continue;
      }
      failure = err;
      break;
    }
    sent += call.size();
    std::lock_guard<std::mutex> guard{mtx_};
    ++stats_.calls_ok;
    stats_.datums_sent += static_cast<int64_t>(call.size());
  }
  std::lock_guard<std::mutex> guard{mtx_};
  // The calls are consecutive runs of the backlog, so what was sent is a
  // prefix of it (and of pending_, which only this thread shrinks).
  pending_.erase(pending_.begin(),
                 pending_.begin() + static_cast<ptrdiff_t>(sent));
  if (!failure)
    return pending_.empty();
  ++stats_.calls_failed;
  log::warn() << "cloudwatch: PutMetricData failed, " << pending_.size()
              << " datums kept for the next round: " << render(failure);
  return false;
}

void metric_publisher::start() {
  thread_ = std::thread{[this] {
    std::unique_lock<std::mutex> lock{mtx_};
    while (!stopping_) {
      lock.unlock();
      round();
      lock.lock();
      wake_.wait_for(lock, opts_.interval, [this] { return stopping_; });
    }
  }};
}

void metric_publisher::stop() {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    stopping_ = true;
    wake_.notify_all();
  }
  if (thread_.joinable())
    thread_.join();
}

metric_publisher_stats metric_publisher::stats() const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto s = stats_;
  s.pending = pending_.size();
  return s;
}

} // namespace det::telemetry
