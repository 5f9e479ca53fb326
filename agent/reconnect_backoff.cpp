#include "agent/reconnect_backoff.hpp"

namespace det::agent {

policy::backoff_config agent_reconnect_backoff() {
  policy::backoff_config c;
  c.initial = std::chrono::seconds{1};
  c.multiplier = 2.0;
  c.max_delay = std::chrono::seconds{30};
  c.jitter = 0.5;
  c.max_attempts = 0;
  c.max_elapsed = policy::duration::zero();
  return c;
}

reconnect_backoff::reconnect_backoff(std::function<double()> uniform,
                                     policy::backoff_config cfg)
    : uniform_(std::move(uniform)), cfg_(cfg) {}

std::chrono::milliseconds reconnect_backoff::next_delay() {
  // Past ~30 doublings the cap holds anyway; keep the exponent bounded.
  if (failures_ < 64)
    ++failures_;
  return std::chrono::duration_cast<std::chrono::milliseconds>(
      policy::backoff_delay(cfg_, failures_, uniform_()));
}

} // namespace det::agent
