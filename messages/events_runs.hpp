#pragma once

// Persisted events of runs (upstream 0.38's name for trials, in the Runs
// API and the WebUI's run table): archived, deleted, and a trial's log
// line matching one of its experiment's log policies. Included by
// messages/events.hpp (the catalogue); the rules there apply (past tense,
// never renamed, new fields at the end).

#include "messages/event_definition.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace det {

inline void require_trial_ids(const std::vector<int64_t>& ids) {
  if (ids.empty())
    throw field_error("field 'trial_ids': must name at least one trial");
  for (auto id : ids)
    if (id <= 0)
      throw field_error("field 'trial_ids': must be positive ids");
}

/// A user archived (or unarchived) ended runs of one experiment
/// (POST /api/v1/runs/archive, /unarchive): run lists leave them out unless
/// archived ones are asked for.
struct runs_archived {
  static constexpr const char* type_name = "runs_archived";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::vector<int64_t> trial_ids;
  bool archived = true;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("trial_ids", trial_ids);
    f.req("archived", archived);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const { require_trial_ids(trial_ids); }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// A user deleted ended runs of an ended experiment (POST
/// /api/v1/runs/delete): they leave every list and lookup, their logs are
/// deleted, and their ids are never given again. Their checkpoints stay
/// under the experiment's garbage-collection policy.
struct runs_deleted {
  static constexpr const char* type_name = "runs_deleted";
  static constexpr int32_t version = 1;
  int64_t experiment_id = 0;
  std::vector<int64_t> trial_ids;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("experiment_id", experiment_id);
    f.req("trial_ids", trial_ids);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const { require_trial_ids(trial_ids); }
  std::string stream() const {
    return "experiment/" + std::to_string(experiment_id);
  }
};

/// A line of a trial's logs matched one of its experiment's log policies
/// (config `log_policies`). `name` is shown on the run (logPolicyMatched);
/// `action` "cancel_retries" keeps the trial from restarting after a
/// failure, "exclude_node" keeps its later runs off agent `node`; "" only
/// labels it.
struct trial_log_policy_matched {
  static constexpr const char* type_name = "trial_log_policy_matched";
  static constexpr int32_t version = 1;
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  std::string name;
  std::string pattern;
  std::string action;
  std::string node;
  std::string line;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("trial_id", trial_id);
    f.req("experiment_id", experiment_id);
    f.req("name", name);
    f.opt("pattern", pattern);
    f.req("action", action);
    f.opt("node", node);
    f.opt("line", line);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (action != "" && action != "cancel_retries" && action != "exclude_node")
      throw field_error("field 'action': must be \"\", \"cancel_retries\" or "
                        "\"exclude_node\"");
    if (action == "exclude_node" && node.empty())
      throw field_error("field 'node': required for exclude_node");
  }
  std::string stream() const { return "trial/" + std::to_string(trial_id); }
};

using run_event_family =
    event_family<runs_archived, runs_deleted, trial_log_policy_matched>;

} // namespace det
