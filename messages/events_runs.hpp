#pragma once

// Persisted events of runs (upstream 0.38's name for trials, in the Runs
// API and the WebUI's run table): archived, deleted, and a trial's log
// line matching one of its experiment's log policies. Included by
// messages/events.hpp (the catalogue); the rules there apply (past tense,
// never renamed, new fields at the end).

#include <cstdint>
#include <string>
#include <vector>

namespace det {

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
};

} // namespace det
