#pragma once

// When det-agent dials the master again after a failed connect or a
// dropped connection: jittered exponential backoff, 1 s doubling to 30 s
// (docs/agent_protocol.md), forever. The n-th delay of a series is
// policy::backoff_delay(n) with u drawn from the injected random source, so
// tests fix the schedule. reset() after the master's welcome starts a fresh
// series. Not thread-safe: the agent's connect loop owns it.

#include "policy/backoff.hpp"

#include <chrono>
#include <functional>

namespace det::agent {

/// 1 s initial, x2, 30 s cap, jitter 0.5 (a delay lies in [d/2, d]).
policy::backoff_config agent_reconnect_backoff();

class reconnect_backoff {
public:
  /// `uniform` returns numbers in [0, 1).
  explicit reconnect_backoff(
      std::function<double()> uniform,
      policy::backoff_config cfg = agent_reconnect_backoff());

  /// The wait before the next attempt; each call counts one failure.
  std::chrono::milliseconds next_delay();

  void reset() { failures_ = 0; }

  [[nodiscard]] int failures() const { return failures_; }

private:
  std::function<double()> uniform_;
  policy::backoff_config cfg_;
  int failures_ = 0;
};

} // namespace det::agent
