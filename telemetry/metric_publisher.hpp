#pragma once

// Puts an instance's metrics to CloudWatch (PutMetricData, namespace
// Determined) every `interval` from a thread of its own. round() collects
// the datums of the moment, appends them to what is still unsent, and
// sends them in calls within PutMetricData's limits (split_metric_data).
// A call that fails keeps its datums and every later one for the next
// round, with their own timestamps, so an outage loses nothing that is
// younger than CloudWatch's two weeks; the backlog is bounded
// (max_pending, oldest dropped first and counted), so a long outage cannot
// grow memory without end. A call refused as invalid is dropped and
// counted instead of being sent forever.
//
// Threads: round() from one thread at a time (the publisher's own after
// start(), a test's before).

#include "aws/cloudwatch_client.hpp"

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
#include <vector>

namespace det::telemetry {

struct metric_publisher_options {
  std::string name_space = "Determined";
  std::chrono::milliseconds interval{60'000};
  size_t max_pending = 100'000;
  aws::metric_limits limits;
  /// Wall clock, milliseconds since the epoch.
  std::function<int64_t()> now_ms;
};

struct metric_publisher_stats {
  int64_t datums_sent = 0;
  int64_t calls_ok = 0;
  int64_t calls_failed = 0;
  int64_t dropped_backlog = 0;
  int64_t dropped_too_old = 0;
  /// In calls CloudWatch refused as invalid (a 4xx that is not throttling
  /// or auth): they would be refused again.
  int64_t dropped_invalid = 0;
  size_t pending = 0;
};

class metric_publisher {
public:
  /// `collect(now_ms)` returns the datums of the moment.
  using collect_fn = std::function<std::vector<aws::metric_datum>(int64_t)>;

  metric_publisher(metric_publisher_options opts,
                   std::shared_ptr<aws::cloudwatch_client> client,
                   collect_fn collect);
  ~metric_publisher();
  metric_publisher(const metric_publisher&) = delete;
  metric_publisher& operator=(const metric_publisher&) = delete;

  /// Collects, then sends the backlog; true when nothing is left unsent.
  bool round();

  void start();
  void stop();

  metric_publisher_stats stats() const;

private:
  metric_publisher_options opts_;
  std::shared_ptr<aws::cloudwatch_client> client_;
  collect_fn collect_;
  std::deque<aws::metric_datum> pending_;
  mutable std::mutex mtx_;
  std::condition_variable wake_;
  metric_publisher_stats stats_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace det::telemetry
