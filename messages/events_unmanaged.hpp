#pragma once

// Persisted events of unmanaged trials: trials that run outside the cluster
// (the SDK's core_v2 with a user session) and report to an experiment
// created with `unmanaged: true`. The master never schedules them; their
// state is what their client sets, and their experiment's state follows
// from their trials' (state/apply_unmanaged.cpp). Included by
// messages/events.hpp (the catalogue); the rules there apply (past tense,
// never renamed, new fields at the end).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace det {

/// A user created (POST /api/v1/trials) or put (PUT /api/v1/trials, by
/// `external_id`) a trial of an unmanaged experiment. Put again with the
/// same external id, the trial keeps its id and takes the new `hparams`.
struct unmanaged_trial_created {
  static constexpr const char* type_name = "unmanaged_trial_created";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  std::string external_id;
  nlohmann::json hparams = nlohmann::json::object();
  std::string username;
  int64_t at_us = 0;
};

/// An unmanaged trial's client set its state (PATCH /api/v1/trials/{id},
/// POST /api/v1/trials/{id}/start with `started`: a new run), or the
/// master gave it up for lost (ERROR, no heartbeat). `state` is PAUSED,
/// RUNNING, COMPLETED, CANCELED or ERROR.
struct unmanaged_trial_state_set {
  static constexpr const char* type_name = "unmanaged_trial_state_set";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  std::string state;
  bool started = false;
  std::string reason;
  std::string username;
  int64_t at_us = 0;
};

} // namespace det
