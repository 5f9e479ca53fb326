#pragma once

// An experiment's log policies (config `log_policies`, as upstream 0.38):
// each names a label shown on a trial whose logs match its RE2 pattern,
// and an optional action: `cancel_retries` (a failure after the match is
// final) or `exclude_node` (the trial's later runs avoid that agent).
// Upstream's two defaults (CUDA OOM, ECC Error: labels only) apply unless
// the config names a policy the same; a policy without a pattern is off
// (naming a default without one turns the default off). The legacy form
// (no name; `action: {type: ...}`) is accepted as upstream accepts it.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace det::policy {

struct log_policy {
  /// "" for a legacy (unnamed) policy.
  std::string name;
  /// "" when the policy is off.
  std::string pattern;
  /// "", "cancel_retries" or "exclude_node".
  std::string action;
};

/// Longest pattern accepted, in bytes.
inline constexpr size_t max_log_policy_pattern = 4096;

/// Why `value` (the config's `log_policies`) is not a valid list of
/// policies, naming the item and field ("log_policies[1].pattern: ..."),
/// or "" when it is. A pattern must compile with RE2.
std::string log_policies_problem(const nlohmann::json& value);

/// The policies of `config` (an experiment config already checked with
/// log_policies_problem) merged with upstream's defaults: the config's
/// first, then each default whose name the config does not use.
std::vector<log_policy> effective_log_policies(const nlohmann::json& config);

/// Whether `line` echoes the experiment config (the harness prints it),
/// which holds the patterns themselves: such lines are not matched.
bool echoes_log_policies(const std::string& line);

} // namespace det::policy
