#pragma once

// The checkpoint garbage collector. On every tick it asks the master (on
// the master's thread, core/checkpoint_gc.hpp) which completed checkpoints
// the experiments' policies no longer keep and records
// checkpoints_deletion_requested for them; then it hands every deletion
// under way (checkpoints "deleting", also those a previous master left) to
// `run`, which deletes off actor threads and answers once; success records
// checkpoints_deleted, failure is logged and retried on a later tick with
// exponential backoff (in ticks). Never more than one deletion per
// experiment at a time. The same tick hands the trials whose logs are past
// their retention to `expire_logs`, and every file removal under way
// (checkpoint_files_removal_requested) to `remove_files`, one at a time per
// checkpoint.

#include "actors/master_actor.hpp"
#include "core/checkpoint_files.hpp"
#include "core/checkpoint_gc.hpp"
#include "core/log_retention.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <chrono>
#include <functional>

namespace det {

struct checkpoint_gc_options {
  /// Re-armed after each tick; 0 = ticks only come from outside (tests).
  std::chrono::milliseconds tick_interval{2000};
  /// Deletes `d` (blocking work must not run on the calling thread) and
  /// calls `done` exactly once, on any thread.
  std::function<void(checkpoint_deletion d,
                     std::function<void(caf::error)> done)>
      run;
  /// Removes files from one checkpoint (`det checkpoint rm`, blocking work
  /// off the calling thread) and calls `done` once with the files left;
  /// success records checkpoint_files_removed, failure is retried like a
  /// deletion. None: removals wait.
  std::function<void(checkpoint_file_removal r,
                     std::function<void(caf::expected<nlohmann::json>)> done)>
      remove_files;
  /// At most this many ticks between attempts of a failing deletion.
  int max_backoff_ticks = 30;
  /// Called on every tick with the ended trials whose logs are past their
  /// retention (core/log_retention.hpp) at the master's clock; none: logs
  /// are not expired.
  std::function<void(std::vector<int64_t> trial_ids)> expire_logs;
};

/// Handles tick_atom.
caf::actor spawn_checkpoint_gc(caf::actor_system& sys, master_actor master,
                               checkpoint_gc_options opts);

} // namespace det
