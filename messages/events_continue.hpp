#pragma once

// Persisted event of an ended experiment continued (`det experiment
// continue`, POST /api/v1/experiments/continue). Included by
// messages/events.hpp (the catalogue); the rules there apply (past tense,
// never renamed, new fields at the end).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// An ended experiment runs again: ACTIVE with `config` (its config with
/// the user's override merged over it), the searcher restored from
/// `searcher_state` (which already asks the reopened trials to train to
/// their new targets), and `trial_ids` (its trials that had ended) pending
/// again with their restarts reset, to resume from their latest
/// checkpoints.
struct experiment_continued {
  static constexpr const char* type_name = "experiment_continued";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  nlohmann::json config = nlohmann::json::object();
  std::vector<int64_t> trial_ids;
  nlohmann::json searcher_state = nlohmann::json::object();
  double progress = 0.0;
  std::string username;
  int64_t at_us = 0;
  /// A single-trial experiment whose override changed its
  /// hyperparameters: its trial's hparams from now on (null: unchanged).
  nlohmann::json trial_hparams;
};

} // namespace det
