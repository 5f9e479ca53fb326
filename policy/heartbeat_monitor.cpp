#include "policy/heartbeat_monitor.hpp"

#include <algorithm>

namespace det::policy {

heartbeat_monitor::heartbeat_monitor(clock::duration interval, int missed,
                                     clock::time_point now)
    : interval_(std::max(interval, clock::duration{1})),
      missed_(std::max(missed, 1)), last_(now) {}

void heartbeat_monitor::seen(clock::time_point now) {
  last_ = std::max(last_, now);
}

int64_t heartbeat_monitor::missed_count(clock::time_point now) const {
  if (now <= last_)
    return 0;
  return static_cast<int64_t>((now - last_) / interval_);
}

bool heartbeat_monitor::expired(clock::time_point now) const {
  return now >= deadline();
}

heartbeat_monitor::clock::time_point heartbeat_monitor::deadline() const {
  return last_ + interval_ * missed_;
}

void heartbeat_monitor::set_interval(clock::duration interval) {
  interval_ = std::max(interval, clock::duration{1});
}

} // namespace det::policy
