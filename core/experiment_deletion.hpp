#pragma once

// Deleting an ended experiment as events, for both deciders that do it:
// `det experiment delete` (master_core::delete_experiment) and a
// workspace's deletion with its projects (core/records.cpp). Pure.

#include "messages/errc.hpp"
#include "messages/events.hpp"
#include "state/cluster_state.hpp"

#include <string>
#include <vector>

namespace det {

struct experiment_deletion {
  /// checkpoints_deletion_requested for its completed checkpoints (the
  /// collector deletes their files), then experiment_deleted.
  std::vector<domain_event> events;
  /// How many checkpoints go with it.
  size_t checkpoints = 0;
  /// errc::none, or why it may not be deleted: not_found, invalid_argument
  /// (it has not ended), conflict (a checkpoint is a model version).
  errc code = errc::none;
  std::string why;
};

[[nodiscard]] experiment_deletion
delete_experiment_events(const state::cluster_state& s, int64_t id,
                         const std::string& username, int64_t now_us);

} // namespace det
