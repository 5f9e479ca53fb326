#pragma once

// Retries of one AWS call: full-jitter exponential backoff within a budget of
// attempts and of total time. Time and randomness come in through
// retry_clock so tests observe every requested delay without sleeping.

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace det::aws {

struct retry_policy {
  /// Attempts in all, the first included; 1 means never retry.
  int max_attempts = 5;
  /// The cap before jitter doubles from here: base, 2*base, 4*base, ...
  std::chrono::milliseconds base_delay{200};
  /// No single delay exceeds this.
  std::chrono::milliseconds max_delay{20'000};
  /// No retry starts if its delay would end past this, counted from the
  /// first attempt.
  std::chrono::milliseconds max_total{60'000};
};

/// The clock, the sleep and the random source of a retry loop.
struct retry_clock {
  std::function<std::chrono::steady_clock::time_point()> now;
  std::function<void(std::chrono::milliseconds)> sleep;
  /// Uniform in [0, 1).
  std::function<double()> uniform01;

  /// steady_clock, std::this_thread::sleep_for, a seeded std::mt19937.
  static retry_clock real();
};

/// The delay before retry number `retry` (1 for the first retry):
/// u * min(max_delay, base_delay * 2^(retry-1)), u uniform in [0, 1)
/// (util::backoff_delay with full jitter).
std::chrono::milliseconds backoff_delay(const retry_policy& policy, int retry,
                                        double u);

/// Decides whether a failed attempt is worth another try.
using retry_predicate = std::function<bool(const caf::error&)>;

/// Runs `attempt` until it succeeds, fails with an error that
/// `should_retry` rejects, or the budget is spent. The final error keeps its
/// code and gains " (gave up after N attempts in T ms)" when retries ran.
caf::error run_with_retries(const retry_policy& policy,
                            const retry_clock& clock,
                            const retry_predicate& should_retry,
                            const std::function<caf::error()>& attempt);

/// The caf::expected form of run_with_retries.
template <class T>
caf::expected<T>
with_retries(const retry_policy& policy, const retry_clock& clock,
             const retry_predicate& should_retry,
             const std::function<caf::expected<T>()>& attempt) {
  std::optional<caf::expected<T>> result;
  auto err = run_with_retries(policy, clock, should_retry, [&]() {
    result.emplace(attempt());
    return *result ? caf::error{} : result->error();
  });
  if (err)
    return err;
  return std::move(*result);
}

/// The same error with `suffix` appended to its message text (det errors
/// with a single string context); other errors are returned unchanged.
caf::error annotate(const caf::error& err, const std::string& suffix);

} // namespace det::aws
