#pragma once

// A trial's checkpoints only move forward: state::apply refuses a
// trial_checkpointed older than the trial's latest, so a report that would
// go back is the caller's error, refused before any event is made. One
// rule for the trials the master runs (master_core::checkpoint_reported)
// and the unmanaged ones (on(unmanaged_checkpoint)). Private to core/.

#include "messages/errc.hpp"
#include "state/cluster_state.hpp"

#include <caf/error.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace det {

/// invalid_argument naming checkpoint.metadata.steps_completed when a
/// checkpoint at `steps` is older than `t`'s latest; nothing otherwise.
inline std::optional<caf::error>
older_checkpoint_refusal(const state::trial_info& t, int64_t steps) {
  if (!t.latest_checkpoint || steps >= t.latest_checkpoint->steps_completed)
    return std::nullopt;
  return make_error(errc::invalid_argument,
                    "checkpoint.metadata.steps_completed: "
                        + std::to_string(steps) + " is older than trial "
                        + std::to_string(t.id) + "'s latest checkpoint at step "
                        + std::to_string(t.latest_checkpoint->steps_completed));
}

} // namespace det
