#pragma once

// The one jittered exponential backoff formula: the wait before the n-th
// retry (n >= 1) is
//   d(n) = min(cap, initial * multiplier^(n-1)) * (1 - jitter * u)
// with u uniform in [0, 1]: jitter 0 is plain exponential, 1 is "full
// jitter" in [0, d]. Units are the caller's (any duration's count). Pure;
// the callers keep their own state, budgets and random sources
// (policy/backoff for the provisioner and det-agent, aws/retry for AWS
// calls).

namespace det::util {

/// d(n) as above. A multiplier below 1 counts as 1, n below 1 as 1, and
/// jitter and u are clamped to [0, 1]; a huge n stays at the cap.
[[nodiscard]] double backoff_delay(double initial, double multiplier,
                                   double cap, int n, double jitter, double u);

} // namespace det::util
