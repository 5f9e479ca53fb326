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

/// How the experiment leaves: `after_files` (det experiment delete) shows
/// it as DELETING until the checkpoint collector has deleted its files and
/// records experiment_deleted; `at_once` (a workspace deleted with its
/// projects) deletes it now and leaves its checkpoints to the collector as
/// orphans.
enum class deletion_mode { after_files, at_once };

struct experiment_deletion {
  /// checkpoints_deletion_requested for its completed checkpoints (the
  /// collector deletes their files), then experiment_deletion_started or
  /// experiment_deleted.
  std::vector<domain_event> events;
  /// How many checkpoints go with it.
  size_t checkpoints = 0;
  /// errc::none, or why it may not be deleted: not_found, invalid_argument
  /// (it has not ended), conflict (a checkpoint is a model version),
  /// failed_precondition (after_files: it is being deleted already).
  errc code = errc::none;
  std::string why;
};

[[nodiscard]] experiment_deletion
delete_experiment_events(const state::cluster_state& s, int64_t id,
                         const std::string& username, int64_t now_us,
                         deletion_mode mode);

} // namespace det
