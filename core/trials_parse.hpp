#pragma once

// The commands of core/commands_trials.hpp from the arguments the API read
// from a request (upstream's spelling: trialId, externalTrialId, ...), at
// the boundary: the API calls these before it sends the command. Each
// checks the shape of every field it reads and fails with
// errc::invalid_argument naming the field; text is checked for UTF-8,
// control characters and length, JSON documents for depth and size.
// Nothing here reads the state. The username is left empty; the caller
// sets it. Pure code, any thread.

#include "core/commands_trials.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

namespace det {

/// {trialId, group, steps, metrics}.
caf::expected<user_metrics_report>
parse_user_metrics_report(const nlohmann::json& a);

/// {config, externalExperimentId, projectId}.
caf::expected<unmanaged_experiment_open>
parse_unmanaged_experiment_open(const nlohmann::json& a);

/// {experimentId, externalTrialId, hparams}.
caf::expected<unmanaged_trial_open>
parse_unmanaged_trial_open(const nlohmann::json& a);

/// {trialId, resume}.
caf::expected<unmanaged_trial_start>
parse_unmanaged_trial_start(const nlohmann::json& a);

/// {trialId, state}: the state as upstream spells it, with or without
/// "STATE_".
caf::expected<unmanaged_trial_patch>
parse_unmanaged_trial_patch(const nlohmann::json& a);

/// {trialId, uuid, steps, metadata}.
caf::expected<unmanaged_checkpoint>
parse_unmanaged_checkpoint(const nlohmann::json& a);

} // namespace det
