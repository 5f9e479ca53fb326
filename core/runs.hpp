#pragma once

// The decisions on runs (upstream 0.38's name for trials) that the Runs
// API and the log-policy scanner ask the master for, as record commands
// (core/records.hpp):
//   runs.archive  {experimentId, runIds, archived}  ended runs of one
//                 experiment, not archived itself; runs already so are
//                 left out; none left: nothing is written
//   runs.delete   {experimentId, runIds}            ended runs of an ended
//                 experiment
// Every refusal names the run and why, in upstream's words where it has
// them.

#include "core/commands.hpp"
#include "core/records.hpp"

#include <optional>

namespace det {

record_outcome decide_runs(const state::cluster_state& s,
                           const record_command& c, int64_t now_us);

/// The command log_policy_match: trial_log_policy_matched with the policy
/// as the config has it, once per trial and policy; nothing for a trial
/// deleted meanwhile or a policy the config does not have (any more).
std::optional<trial_log_policy_matched>
log_policy_event(const state::cluster_state& s, const log_policy_match& c,
                 int64_t now_us);

} // namespace det
