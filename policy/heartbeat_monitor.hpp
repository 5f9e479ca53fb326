#pragma once

// Liveness of the other end of a connection that should hear from its peer
// at least every `interval`: the peer counts as gone once `missed` whole
// intervals have passed since the last sign of life. Used by det-master for
// each agent socket and by det-agent for its master socket
// (docs/agent_protocol.md). Pure: the caller passes its clock's readings.

#include <chrono>
#include <cstdint>

namespace det::policy {

class heartbeat_monitor {
public:
  using clock = std::chrono::steady_clock;

  /// `interval` > 0, `missed` >= 1; `now` starts the first interval.
  heartbeat_monitor(clock::duration interval, int missed,
                    clock::time_point now);

  /// A frame arrived (any frame counts, not only heartbeats).
  void seen(clock::time_point now);

  /// Whole intervals elapsed since the last sign of life.
  [[nodiscard]] int64_t missed_count(clock::time_point now) const;

  /// True once `missed` intervals have passed without a sign of life.
  [[nodiscard]] bool expired(clock::time_point now) const;

  /// When expired() turns true unless seen() is called before.
  [[nodiscard]] clock::time_point deadline() const;

  void set_interval(clock::duration interval);

  [[nodiscard]] clock::duration interval() const { return interval_; }

  [[nodiscard]] int missed_limit() const { return missed_; }

private:
  clock::duration interval_;
  int missed_;
  clock::time_point last_;
};

} // namespace det::policy
