#pragma once

// Persisted events of an experiment's settings changed after its creation
// (the checkpoint GC policy ...). Included by messages/events.hpp (the
// catalogue); the rules there apply (past tense, never renamed, new fields
// at the end).

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// A user changed an experiment's checkpoint garbage-collection policy
/// (`det experiment set gc-policy`): its checkpoint_storage keeps these
/// counts from now on, and the collector deletes what they no longer keep.
struct experiment_gc_policy_changed {
  static constexpr const char* type_name = "experiment_gc_policy_changed";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  int64_t save_experiment_best = 0;
  int64_t save_trial_best = 0;
  int64_t save_trial_latest = 0;
  std::string username;
  int64_t at_us = 0;
};

/// A user set how long the logs of an experiment's trials (`trial_ids`;
/// empty = all of them) are kept after each trial ends (`det experiment
/// set log-retention`, `det trial set log-retention`): `days` from 0, or
/// -1 for ever.
struct log_retention_set {
  static constexpr const char* type_name = "log_retention_set";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::vector<int64_t> trial_ids;
  int64_t days = -1;
  std::string username;
  int64_t at_us = 0;
};

} // namespace det
