#pragma once

// Persisted event of an ended experiment continued (`det experiment
// continue`, POST /api/v1/experiments/continue). Included by
// messages/events.hpp (the catalogue); the rules there apply (past tense,
// never renamed, new fields at the end).

#include "messages/event_definition.hpp"

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

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("config", config);
    f.opt("trial_ids", trial_ids);
    f.req("searcher_state", searcher_state);
    f.opt("progress", progress);
    f.opt("username", username);
    f.opt("at_us", at_us);
    f.opt("trial_hparams", trial_hparams);
  }
  void validate() const {
    require_object(config, "field 'config'");
    require_object(searcher_state, "field 'searcher_state'");
    if (!(progress >= 0.0 && progress <= 1.0))
      throw field_error("field 'progress': must be within [0, 1]");
    for (auto id : trial_ids)
      if (id <= 0)
        throw field_error("field 'trial_ids': must be positive ids");
    if (!trial_hparams.is_null()) {
      require_object(trial_hparams, "field 'trial_hparams'");
      if (trial_ids.size() != 1)
        throw field_error("field 'trial_hparams': only for one trial");
    }
  }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

using continue_event_family = event_family<experiment_continued>;

} // namespace det
