#pragma once

// The policies a det-sim run compares, by name: "ours" (the master's
// policy::decide_scale with the given idle period), "ours+self-stop" (the
// same, with agents that stop their idle instance while the master is
// unreachable: policy/idle_self_shutdown; an agent holding an exit the
// master has not recorded waits for it, as det-agent does),
// "ours+self-stop-drop-exits" (the same, but such an agent stops anyway
// and the exit is lost: not what det-agent does, measured for comparison),
// "ours+self-stop-tag-exits" (what det-agent does on a provisioned EC2
// instance: the pool's shorter unreachable_idle_agent_period while the
// master is unreachable, and an agent holding exits writes them into its
// instance's tags, then stops; the returning master records them),
// "ours+consolidate" (ours, and jobs moved off under-used instances so
// they can be terminated: policy/consolidation),
// "det-20m" and "det-5m"
// (Determined's scale rule with its code default and its documented
// max_idle_agent_period), "ca" (cluster-autoscaler-like: 10 s scan, empty
// nodes removed after 10 min unneeded and not within 10 min of a
// scale-up), "karpenter" (1 s batching, empty nodes removed at once).
// Pure.

#include "sim/sim_config.hpp"

#include <optional>
#include <string>
#include <vector>

namespace det::sim {

/// The spec named `name`; nothing for an unknown name.
[[nodiscard]] std::optional<policy_spec> policy_named(const std::string& name,
                                                      int64_t ours_idle_s);

/// Every name policy_named knows, in the order people read them.
[[nodiscard]] const std::vector<std::string>& policy_names();

/// The names a run compares when none are chosen: ours, det-20m, det-5m,
/// ca, karpenter.
[[nodiscard]] const std::vector<std::string>& standard_policy_names();

/// `names` joined with ", " (for help texts and refusals).
[[nodiscard]] std::string joined(const std::vector<std::string>& names);

/// The specs of standard_policy_names().
[[nodiscard]] std::vector<policy_spec> standard_policies(int64_t ours_idle_s);

} // namespace det::sim
