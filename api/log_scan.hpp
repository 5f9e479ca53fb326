#pragma once

// Matching trial log lines against RE2 patterns, each pattern once per
// trial: the loop the webhooks' TASK_LOG triggers (api/webhook_runtime) and
// the experiments' log policies (api/log_policy_runtime) share. RE2 matches
// in linear time, whatever a trial prints.

#include <re2/re2.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace det::api {

/// Calls `fire(p, line)` for the first line of `lines` that each pattern
/// `p` (with members `re`, a shared_ptr<RE2>, and `key`) matches, unless
/// (trial, p.*key) is in `reported` already; it is added under `mu`.
/// Lines `skip` says echo the experiment config are not matched.
/// `reported` is forgotten past 100,000 pairs: the master dedups durably,
/// this only saves traffic.
template <class Pattern, class Key>
void scan_once(
    int64_t trial, const std::vector<std::string>& lines,
    const std::vector<Pattern>& patterns, bool (*skip)(const std::string&),
    std::mutex& mu, std::set<std::pair<int64_t, Key>>& reported,
    Key Pattern::*key,
    const std::function<void(const Pattern&, const std::string&)>& fire) {
  for (const auto& line : lines) {
    if (skip(line))
      continue;
    for (const auto& p : patterns) {
      if (!RE2::PartialMatch(line, *p.re))
        continue;
      {
        std::lock_guard<std::mutex> lock{mu};
        if (reported.size() > 100'000)
          reported.clear();
        if (!reported.insert({trial, p.*key}).second)
          continue;
      }
      fire(p, line);
    }
  }
}

} // namespace det::api
