#pragma once

// An experiment edit's JSON (PATCH /api/v1/experiments/{id}, upstream's
// spelling: name, description, notes, labels, resources.{priority, weight,
// maxSlots}, checkpointStorage.{saveExperimentBest, saveTrialBest,
// saveTrialLatest}) turned into its command, at the boundary: the API
// calls these before it sends the command. Each checks every field it
// reads and fails with errc::invalid_argument naming it ("labels[1]
// contains a control character", "resources.priority: expected a whole
// number from 1 (first) to 99, not 0"); a null field is left unset (its
// value kept). Nothing here reads the state: whether the experiment exists
// or has ended the core decides. Pure code, any thread. The username is
// left empty; the caller sets it.

#include "core/commands_experiments.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace det {

/// The edit of experiment `id` from the experiment object `patch`: "id",
/// when given, must be `id`; a key that cannot be edited is refused by
/// name.
caf::expected<experiment_edit>
parse_experiment_edit(int64_t id, const nlohmann::json& patch);

/// {priority, weight, maxSlots (or max_slots)}; refusals name the field
/// as `at` + "." + key ("resources.priority"), or the key alone when `at`
/// is empty.
caf::expected<resources_edit> parse_resources_edit(const nlohmann::json& r,
                                                   const std::string& at);

/// {saveExperimentBest, saveTrialBest, saveTrialLatest}: whole numbers
/// from 0.
caf::expected<gc_counts_edit> parse_gc_counts_edit(const nlohmann::json& c);

} // namespace det
