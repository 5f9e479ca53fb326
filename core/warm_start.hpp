#pragma once

// Warm start (upstream's searcher.source_trial_id and
// searcher.source_checkpoint_uuid): a new experiment's trials start from a
// checkpoint of another experiment (DET_LATEST_CHECKPOINT) until they have
// one of their own. Checked when the experiment is created; resolved from
// the state each time a trial is started, so a restarted master starts it
// from the same checkpoint. Pure; any thread.

#include "state/cluster_state.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <optional>

namespace det {

/// The completed checkpoint `config`'s searcher names: the checkpoint
/// source_checkpoint_uuid, or the latest of trial source_trial_id; nullopt
/// when it names neither. errc::not_found naming the field for a trial or
/// checkpoint that does not exist, errc::invalid_argument for one that is
/// not (or no longer) completed or a trial without a checkpoint.
[[nodiscard]] caf::expected<std::optional<state::checkpoint_info>>
warm_start_checkpoint(const state::cluster_state& s,
                      const nlohmann::json& config);

} // namespace det
