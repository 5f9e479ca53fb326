#pragma once

// Checkpoint garbage collection as plain code: which checkpoints the master
// should now mark for deletion (each experiment's checkpoint_storage policy,
// policy/checkpoint_gc.hpp, over its ended trials), and which deletions are
// under way (checkpoints in state "deleting", with the storage they live
// in) so a worker deletes them, again after a restart. The deleting itself
// is checkpoint_deleter's (I/O, off actor threads). Pure; any thread.

#include "core/commands_experiments.hpp"
#include "messages/events.hpp"
#include "policy/checkpoint_gc.hpp"
#include "state/cluster_state.hpp"

#include <caf/error.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace det {

/// The GC policy of experiment `e` (its checkpoint_storage's counts, with
/// upstream's defaults 0 / 1 / 1, and its searcher's smaller_is_better).
[[nodiscard]] policy::gc_policy gc_policy_of(const state::experiment_info& e);

/// The completed checkpoints of `e` that policy `p` does not keep (of its
/// ended trials only): what the collector would delete, or what a policy
/// change would (the gc-policy preview).
[[nodiscard]] std::vector<std::string>
checkpoints_policy_deletes(const state::cluster_state& s,
                           const state::experiment_info& e,
                           const policy::gc_policy& p);

/// The event for an edit's checkpoint GC counts (one left unset keeps its
/// value; core/experiments_parse.hpp checked them): nullopt when nothing
/// changes.
[[nodiscard]] std::optional<experiment_gc_policy_changed>
gc_policy_change(const state::experiment_info& e, const gc_counts_edit& edit,
                 const std::string& username, int64_t now_us);

/// checkpoints_deletion_requested events (reason "gc") for every experiment
/// whose policy no longer keeps some completed checkpoint of an ended trial.
[[nodiscard]] std::vector<checkpoints_deletion_requested>
checkpoint_gc_requests(const state::cluster_state& s, int64_t now_us);

/// A deletion to carry out: the experiment's checkpoints in state
/// "deleting" and its checkpoint_storage (as in its config), or a deleted
/// experiment's orphan_checkpoints.
struct checkpoint_deletion {
  int64_t experiment_id = 0;
  std::vector<std::string> uuids;
  nlohmann::json storage;
  /// The experiment itself was deleted: its TensorBoard files go too.
  bool experiment_deleted = false;
  /// The experiment is DELETING (experiment_deletion_started): once the
  /// files are gone the collector records experiment_deleted.
  bool finishes_deletion = false;
};

[[nodiscard]] std::vector<checkpoint_deletion>
pending_checkpoint_deletions(const state::cluster_state& s);

/// The user's `det checkpoint delete`: checkpoints_deletion_requested
/// (reason "user") per experiment for `uuids`, or errc::not_found naming an
/// unknown uuid, errc::invalid_argument naming one that is not completed
/// (or partially deleted) or is the latest checkpoint of a trial that has not
/// ended (it may resume from it).
[[nodiscard]] caf::expected<std::vector<checkpoints_deletion_requested>>
user_checkpoint_deletion(const state::cluster_state& s,
                         const std::vector<std::string>& uuids,
                         const std::string& username, int64_t now_us);

/// Deletes checkpoints from their storage: blocking, retried inside; one
/// implementation per storage type (provision/checkpoint_deleter.hpp).
using checkpoint_delete_fn =
    std::function<caf::error(const checkpoint_deletion&)>;

} // namespace det
