#pragma once

// Which checkpoints of an experiment its checkpoint_storage policy no longer
// keeps (save_experiment_best, save_trial_best, save_trial_latest, as
// upstream defines them): a checkpoint is kept when it is among its trial's
// `save_trial_latest` latest, among its trial's `save_trial_best` best by
// the searcher metric, or among the experiment's `save_experiment_best`
// best; every other checkpoint of an ended trial may be deleted. A running
// trial's checkpoints are never chosen (it may resume from any of them and
// its ranking is not final), but they compete for the experiment's best.
// Choosing at a trial's end is safe: a checkpoint outside the experiment's
// best N now can only fall further as more checkpoints arrive. Pure; any
// thread.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace det::policy {

struct gc_checkpoint {
  std::string uuid;
  int64_t steps_completed = 0;
  /// Report time: orders checkpoints of equal steps.
  int64_t at_us = 0;
  /// The searcher metric validated at this checkpoint's step; none (or
  /// NaN) means the checkpoint ranks for "latest" only.
  std::optional<double> metric;
};

struct gc_trial {
  int64_t id = 0;
  bool ended = false;
  /// Live checkpoints only: already deleted or deleting ones left out.
  std::vector<gc_checkpoint> checkpoints;
};

struct gc_policy {
  int64_t save_experiment_best = 0;
  int64_t save_trial_best = 1;
  int64_t save_trial_latest = 1;
  bool smaller_is_better = true;
};

/// The uuids to delete, in trial order then checkpoint order.
[[nodiscard]] std::vector<std::string>
checkpoints_to_delete(const std::vector<gc_trial>& trials,
                      const gc_policy& policy);

} // namespace det::policy
