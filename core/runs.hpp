#pragma once

// The decisions on runs (upstream 0.38's name for trials) that the Runs
// API and the log-policy scanner ask the master for, pure functions of its
// state that master_core's on() (core/master_core_runs.cpp) calls:
//   - which runs an action takes (run_facts_of): each run of runs_act is
//     qualified against the master's own state in the same decision that
//     acts on it, never against a read copy;
//   - archiving ended runs of an experiment not archived itself (runs
//     already so are left out; none left: nothing is written), deleting
//     ended runs of an ended experiment;
//   - a user's metrics for a managed trial that is not running.
// Every refusal names the run and why, in upstream's words where it has
// them.

#include "core/commands.hpp"
#include "core/records.hpp"

#include <optional>

namespace det {

/// What the state says of run `id` for an action on the runs of project
/// `project_id` (0: any).
struct run_facts {
  bool found = false; ///< listed, and in the project
  int64_t experiment_id = 0;
  bool archived = false;     ///< its experiment, project or workspace
  bool run_archived = false; ///< the run itself
  bool experiment_ended = false;
  bool terminal = false;   ///< the run has ended
  bool single = false;     ///< its experiment's searcher is single
  bool multitrial = false; ///< its experiment has other trials
};
run_facts run_facts_of(const state::cluster_state& s, int64_t id,
                       int64_t project_id);

/// runs_archived for the ended runs `ids` of experiment `experiment_id`
/// that are not so already (nothing when none).
record_outcome archive_runs(const state::cluster_state& s,
                            int64_t experiment_id,
                            const std::vector<int64_t>& ids, bool archived,
                            const std::string& username, int64_t now_us);

/// runs_deleted for the ended runs `ids` of ended experiment
/// `experiment_id`.
record_outcome delete_runs(const state::cluster_state& s, int64_t experiment_id,
                           const std::vector<int64_t>& ids,
                           const std::string& username, int64_t now_us);

/// The event of a user's metric report.
trial_metrics_reported metrics_event(const user_metrics_report& c,
                                     int64_t now_us);

/// A user's metrics for a managed trial (upstream's ReportTrialMetrics
/// from a user): only its experiment's owner or an admin, never while an
/// allocation of it runs (that one reports its own), never once it ended.
record_outcome decide_record(const state::cluster_state& s,
                             const user_metrics_report& c, int64_t now_us);

/// The command log_policy_match: trial_log_policy_matched with the policy
/// as the config has it, once per trial and policy; nothing for a trial
/// deleted meanwhile or a policy the config does not have (any more).
std::optional<trial_log_policy_matched>
log_policy_event(const state::cluster_state& s, const log_policy_match& c,
                 int64_t now_us);

} // namespace det
