#pragma once

// Persisted events of unmanaged trials: trials that run outside the cluster
// (the SDK's core_v2 with a user session) and report to an experiment
// created with `unmanaged: true`. The master never schedules them; their
// state is what their client sets, and their experiment's state follows
// from their trials' (state/apply_unmanaged.cpp). Included by
// messages/events.hpp (the catalogue); the rules there apply (past tense,
// never renamed, new fields at the end).

#include "messages/event_definition.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace det {

inline const std::vector<std::string>& unmanaged_trial_states() {
  static const std::vector<std::string> v{"PAUSED", "RUNNING", "COMPLETED",
                                          "CANCELED", "ERROR"};
  return v;
}

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

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.req("experiment_id", experiment_id);
    f.opt("external_id", external_id);
    f.opt("hparams", hparams);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_object(hparams, "field 'hparams'");
    if (trial_id <= 0 || experiment_id <= 0)
      throw field_error("fields 'trial_id' and 'experiment_id': must be "
                        "positive");
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
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

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.req("experiment_id", experiment_id);
    f.req("state", state);
    f.opt("started", started);
    f.opt("reason", reason);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_one_of("state", state, unmanaged_trial_states());
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

using unmanaged_event_family =
    event_family<unmanaged_trial_created, unmanaged_trial_state_set>;

} // namespace det
