#pragma once

// Persisted events of trials: created by a searcher, placed, running,
// checkpointed, reporting metrics, exited, restarted or closed. Included
// by messages/events.hpp (the catalogue); the rules there apply (past
// tense, never renamed, new fields at the end). All of them belong to
// stream "trial/<id>".

#include "messages/event_definition.hpp"
#include "messages/metric_group.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace det {

/// trial_exited reasons.
inline const std::vector<std::string>& trial_exit_reasons() {
  static const std::vector<std::string> xs{
      "completed", "killed",     "failed",        "preempted",
      "paused",    "agent_lost", "spot_reclaimed"};
  return xs;
}

/// The experiment's searcher created a trial with these hyperparameters;
/// `request_id` is the searcher's name for it.
struct trial_created {
  static constexpr const char* type_name = "trial_created";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  nlohmann::json hparams = nlohmann::json::object();
  std::string request_id;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.req("experiment_id", experiment_id);
    f.opt("hparams", hparams);
    f.opt("request_id", request_id);
    f.opt("at_us", at_us);
  }
  void validate() const { require_object(hparams, "field 'hparams'"); }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

/// Slots of one agent given to an allocation.
struct slot_assignment {
  std::string agent_id;
  std::vector<int64_t> slots;
};

inline bool operator==(const slot_assignment& a, const slot_assignment& b) {
  return a.agent_id == b.agent_id && a.slots == b.slots;
}

/// The scheduler gave a trial its slots; `allocation_id` identifies this
/// run of the trial ("<trial_id>.<run>", state::allocation_id_for) and the
/// agent's start order carries it.
struct trial_placed {
  static constexpr const char* type_name = "trial_placed";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  std::vector<slot_assignment> assignments;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.req("allocation_id", allocation_id);
    f.req("assignments", assignments);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

/// Every container of the allocation started.
struct trial_running {
  static constexpr const char* type_name = "trial_running";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.req("allocation_id", allocation_id);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

/// The master asked the trial to checkpoint and exit (scheduler preemption,
/// experiment paused, agent disabled).
struct trial_preemption_requested {
  static constexpr const char* type_name = "trial_preemption_requested";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  std::string reason;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.req("allocation_id", allocation_id);
    f.opt("reason", reason);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

/// A trial saved a checkpoint; restarts resume from the latest one.
struct trial_checkpointed {
  static constexpr const char* type_name = "trial_checkpointed";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string uuid;
  int64_t steps_completed = 0;
  nlohmann::json metadata = nlohmann::json::object();
  std::string allocation_id;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.req("uuid", uuid);
    f.req("steps_completed", steps_completed);
    f.opt("metadata", metadata);
    f.opt("allocation_id", allocation_id);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_non_empty("uuid", uuid);
    require_non_negative("steps_completed", steps_completed);
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

/// A trial reported the metrics of one group (`kind`) at a step.
struct trial_metrics_reported {
  static constexpr const char* type_name = "trial_metrics_reported";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  /// The metric group (messages/metric_group.hpp): "training" and
  /// "validation" mean what they always did (the latest validation feeds
  /// the searcher); any other group a trial names is kept as reported.
  std::string kind;
  int64_t steps_completed = 0;
  nlohmann::json metrics = nlohmann::json::object();
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.req("allocation_id", allocation_id);
    f.req("kind", kind);
    f.req("steps_completed", steps_completed);
    f.req("metrics", metrics);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (auto why = metric_group_problem(kind); !why.empty())
      throw field_error("field 'kind' " + why);
    require_non_negative("steps_completed", steps_completed);
    require_object(metrics, "field 'metrics'");
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

/// A trial's allocation ended; its slots are free. `reason`: completed,
/// killed (the trial ends), failed (counts a restart), preempted, paused,
/// agent_lost, spot_reclaimed (the trial may be restarted without counting).
struct trial_exited {
  static constexpr const char* type_name = "trial_exited";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string allocation_id;
  int32_t exit_code = 0;
  std::string reason;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.req("allocation_id", allocation_id);
    f.opt("exit_code", exit_code);
    f.req("reason", reason);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_one_of("reason", reason, trial_exit_reasons());
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

/// An exited trial waits for a new allocation again (resuming from its
/// latest checkpoint).
struct trial_restarted {
  static constexpr const char* type_name = "trial_restarted";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

/// A trial ended in ERROR: restarts exhausted, or its request cannot be met.
struct trial_errored {
  static constexpr const char* type_name = "trial_errored";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string reason;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.opt("reason", reason);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

/// A trial without an allocation was closed (experiment canceled or the
/// searcher no longer wants it).
struct trial_canceled {
  static constexpr const char* type_name = "trial_canceled";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  std::string reason;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.opt("reason", reason);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

using trial_event_family =
    event_family<trial_created, trial_placed, trial_running,
                 trial_preemption_requested, trial_checkpointed,
                 trial_metrics_reported, trial_exited, trial_restarted,
                 trial_errored, trial_canceled>;

} // namespace det
