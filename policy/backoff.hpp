#pragma once

// Jittered exponential backoff with a cap and a budget, as plain state plus
// pure functions: the caller passes the time and a uniform random number,
// so the provisioner (one state per instance type) and the AWS client (one
// per request) can persist it, replay it and test it without a clock.
//
// The n-th consecutive failure waits util::backoff_delay (util/backoff.hpp):
//   d(n) = min(max_delay, initial * multiplier^(n-1)) * (1 - jitter * u)
// with u uniform in [0, 1): jitter 0 is plain exponential, 1 is "full
// jitter" in [0, d]. The budget is spent after max_attempts failures or
// max_elapsed since the first of them (0 disables either); then the caller
// gives up and reports the last error instead of retrying. A failure more
// than reset_after after the previous one starts a fresh series, and so
// does a success.

#include "policy/rng.hpp"
#include "policy/time.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>

namespace det::policy {

struct backoff_config {
  duration initial = std::chrono::seconds(5);
  double multiplier = 2.0;
  duration max_delay = std::chrono::minutes(5);
  double jitter = 0.5;
  int max_attempts = 0;
  duration max_elapsed = duration::zero();
  duration reset_after = std::chrono::minutes(30);
};

struct backoff_state {
  int failures = 0;
  std::optional<timestamp> first_failure;
  std::optional<timestamp> last_failure;
  /// No attempt before this time; unset when an attempt may happen now.
  std::optional<timestamp> retry_at;
  bool gave_up = false;

  friend bool operator==(const backoff_state& a, const backoff_state& b) {
    return a.failures == b.failures && a.first_failure == b.first_failure
           && a.last_failure == b.last_failure && a.retry_at == b.retry_at
           && a.gave_up == b.gave_up;
  }
};

/// The wait after the n-th consecutive failure (n >= 1), for u in [0, 1).
[[nodiscard]] duration backoff_delay(const backoff_config& c, int n, double u);

/// The state after a failure at `now`.
[[nodiscard]] backoff_state after_failure(const backoff_state& s,
                                          const backoff_config& c,
                                          timestamp now, double u);

/// Same, drawing u from `r`.
[[nodiscard]] backoff_state after_failure(const backoff_state& s,
                                          const backoff_config& c,
                                          timestamp now, rng& r);

/// The state after a success: a fresh series.
[[nodiscard]] inline backoff_state after_success(const backoff_state&) {
  return {};
}

/// Whether an attempt may be made at `now` (false once the budget is spent).
[[nodiscard]] bool may_attempt(const backoff_state& s, timestamp now);

nlohmann::json to_json(const backoff_state& s);
/// Fails (returns nothing) on a malformed document.
[[nodiscard]] std::optional<backoff_state>
backoff_from_json(const nlohmann::json& j);

} // namespace det::policy
