#pragma once

// Which queued log events go into the next PutLogEvents call, within
// CloudWatch Logs' limits. Pure: the queue, the time and the limits come in;
// the log shipper (telemetry/log_shipper.hpp) owns the queue and the I/O.
//
// A batch is always a prefix of the queue in arrival order, so that the
// journald cursor of its last event is a safe resume point once CloudWatch
// has accepted it. The events of the prefix are then sorted by timestamp
// (stable) for the call, as CloudWatch requires. The prefix ends before the
// first event that would break a limit:
//   - at most max_events events;
//   - at most max_bytes, counting each message's UTF-8 bytes plus
//     event_overhead (26) bytes;
//   - newest minus oldest timestamp at most max_span (24 h).
// Events CloudWatch would refuse are dealt with here, and counted:
//   - older than max_age (14 days) before `now`: dropped (CloudWatch
//     rejects them; there is nothing else to do with them);
//   - more than max_future (2 h) ahead of `now`: sent stamped `now` (a
//     source with a wrong clock still gets its text through);
//   - a message that is not UTF-8 has its bad bytes replaced by U+FFFD, one
//     longer than max_message_bytes is cut, an empty one becomes "-".

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace det::policy {

struct queued_log_event {
  int64_t timestamp_ms = 0;
  std::string message;
  /// The journald cursor after this event; "" for a line that has none
  /// (the program's own log lines).
  std::string cursor;
};

struct log_batch_limits {
  size_t max_events = 10'000;
  size_t max_bytes = 1'048'576;
  size_t event_overhead = 26;
  /// CloudWatch's 256 KiB per event, overhead included.
  size_t max_message_bytes = 262'144 - 26;
  std::chrono::milliseconds max_span{std::chrono::hours{24}};
  std::chrono::milliseconds max_age{std::chrono::hours{24 * 14}};
  std::chrono::milliseconds max_future{std::chrono::hours{2}};
};

struct log_batch {
  /// What to send, in time order (may be empty when all were dropped).
  std::vector<queued_log_event> events;
  /// How many events from the front of the queue this batch consumes
  /// (sent and dropped); pop them once the call has succeeded.
  size_t consumed = 0;
  /// The last non-empty cursor among the consumed events ("" if none).
  std::string cursor;
  /// Bytes as CloudWatch counts them (messages + overhead).
  size_t bytes = 0;
  size_t dropped_too_old = 0;
  size_t restamped_future = 0;
  size_t truncated = 0;
};

/// The next batch from the front of `queue` at time `now_ms`.
[[nodiscard]] log_batch
next_log_batch(const std::deque<queued_log_event>& queue, int64_t now_ms,
               const log_batch_limits& limits = {});

} // namespace det::policy
