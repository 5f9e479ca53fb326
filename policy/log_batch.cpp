#include "policy/log_batch.hpp"

#include "util/text.hpp"

#include <algorithm>

namespace det::policy {

log_batch next_log_batch(const std::deque<queued_log_event>& queue,
                         int64_t now_ms, const log_batch_limits& limits) {
  log_batch out;
  const int64_t oldest_ok = now_ms - limits.max_age.count();
  const int64_t newest_ok = now_ms + limits.max_future.count();
  int64_t lo = 0, hi = 0;
  for (const auto& e : queue) {
    if (out.events.size() >= limits.max_events)
      break;
    if (e.timestamp_ms < oldest_ok) {
      ++out.dropped_too_old;
    } else {
      queued_log_event ev;
      ev.timestamp_ms = e.timestamp_ms;
      bool restamped = false;
      if (ev.timestamp_ms > newest_ok) {
        ev.timestamp_ms = now_ms;
        restamped = true;
      }
      ev.message = util::valid_utf8(e.message, limits.max_message_bytes);
      bool cut = e.message.size() > limits.max_message_bytes;
      if (ev.message.empty())
        ev.message = "-";
      auto size = ev.message.size() + limits.event_overhead;
      auto new_lo =
          out.events.empty() ? ev.timestamp_ms : std::min(lo, ev.timestamp_ms);
      auto new_hi =
          out.events.empty() ? ev.timestamp_ms : std::max(hi, ev.timestamp_ms);
      if (!out.events.empty()
          && (out.bytes + size > limits.max_bytes
              || new_hi - new_lo > limits.max_span.count()))
        break;
      lo = new_lo;
      hi = new_hi;
      out.bytes += size;
      out.restamped_future += restamped ? 1 : 0;
      out.truncated += cut ? 1 : 0;
      ev.cursor = e.cursor;
      out.events.push_back(std::move(ev));
    }
    ++out.consumed;
    if (!e.cursor.empty())
      out.cursor = e.cursor;
  }
  std::stable_sort(out.events.begin(), out.events.end(),
                   [](const queued_log_event& a, const queued_log_event& b) {
                     return a.timestamp_ms < b.timestamp_ms;
                   });
  return out;
}

} // namespace det::policy
