#pragma once

// The records cluster_state is made of: one per pool, agent, instance, open
// spot request, experiment and trial. Plain data with value equality; only
// apply() (state/apply_*.cpp) changes them, and check_invariants() says what
// must hold between them. A new member goes into its record's fields()
// (state/model_fields.hpp), which drives equality and the snapshot. Times are
// microseconds since the epoch copied from events, never read from a clock.

#include "messages/events.hpp"
#include "messages/priority.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace det::state {

// -- statuses ---------------------------------------------------------------

enum class agent_status { connected, disconnected };

/// pending: EC2 "pending"; running: EC2 "running"; terminating: we asked
/// EC2 to terminate it. Terminated instances leave the state.
enum class instance_status { pending, running, terminating };

/// Upstream's experiment states.
enum class experiment_status {
  active,
  paused,
  stopping_completed,
  stopping_canceled,
  stopping_killed,
  stopping_error,
  completed,
  canceled,
  error,
};

/// pending: waits for slots. assigned: has slots, containers starting.
/// running: containers started. checkpointing: asked to checkpoint and exit
/// (preemption). exited: the allocation ended and the trial waits for its
/// actor's decision (trial_restarted or trial_errored). completed, errored,
/// canceled: terminal.
enum class trial_status {
  pending,
  assigned,
  running,
  checkpointing,
  exited,
  completed,
  errored,
  canceled,
};

const char* to_string(agent_status x);
const char* to_string(instance_status x);
/// Upstream spelling: "ACTIVE", "STOPPING_CANCELED", ...
const char* to_string(experiment_status x);
const char* to_string(trial_status x);

/// The inverse of to_string; false when `name` is none of them.
[[nodiscard]] bool from_string(const std::string& name, agent_status& out);
[[nodiscard]] bool from_string(const std::string& name, instance_status& out);
[[nodiscard]] bool from_string(const std::string& name, experiment_status& out);
[[nodiscard]] bool from_string(const std::string& name, trial_status& out);

/// COMPLETED, CANCELED, ERROR.
bool is_terminal(experiment_status x);
/// STOPPING_*.
bool is_stopping(experiment_status x);
/// completed, errored, canceled.
bool is_terminal(trial_status x);
/// assigned, running, checkpointing: the trial holds an allocation.
bool holds_allocation(trial_status x);

// -- records ----------------------------------------------------------------

/// A launch decision whose instances (or spot requests) have not all been
/// seen yet; the provisioner counts these as "recently launched".
struct launch_info {
  int64_t seq = 0;
  std::string client_token;
  int32_t count = 0;
  bool spot = false;
  /// Instances or spot requests seen for it so far (< count).
  int32_t seen = 0;
  int64_t requested_at_us = 0;
};

struct pool_info {
  /// The latest configuration (its `pool` is the pool's name).
  pool_configured config;
  /// Launches ever requested; the next launch_seq is this plus one.
  int64_t launches_requested = 0;
  /// Failed launches since the last launch that produced an instance.
  int32_t consecutive_launch_failures = 0;
  std::string last_launch_error_kind;
  std::string last_launch_error;
  int64_t last_launch_error_at_us = 0;
  /// Outstanding launches by launch_seq.
  std::map<int64_t, launch_info> launches;
};

struct agent_info {
  std::string id;
  std::string pool;
  std::string slot_type;
  /// Empty for static agents.
  std::string instance_id;
  agent_status status = agent_status::connected;
  /// Disabled agents take no new work; `draining` says whether its running
  /// trials were left to finish.
  bool enabled = true;
  bool draining = false;
  /// Disabled to give its instance back (agent_disabled's retire): the
  /// provisioner terminates it as soon as it is idle.
  bool retiring = false;
  /// One entry per slot: the allocation using it, empty when free.
  std::vector<std::string> slots;
  /// Slots an operator disabled (det slot disable), ascending: they take
  /// no new work.
  std::vector<int64_t> disabled_slots;
  int64_t connected_at_us = 0;
  /// Since when no slot is used; empty while any slot is used.
  std::optional<int64_t> idle_since_us;
  /// Set while disconnected.
  int64_t disconnected_at_us = 0;
  int64_t reconnect_deadline_us = 0;
  /// Set while the agent holds more slots than its capacity
  /// (agent_slots_changed shrank it below slots still in use): slots at or
  /// past it take no new work and leave the end of `slots` once freed.
  std::optional<int32_t> slot_limit;
};

struct instance_info {
  std::string id;
  std::string pool;
  /// 0 when adopted by reconciliation without a known launch.
  int64_t launch_seq = 0;
  /// Set for instances of a fulfilled spot request.
  std::string spot_request_id;
  instance_status status = instance_status::pending;
  /// The connected (or reconnect-pending) agent on it, if any.
  std::string agent_id;
  int64_t launched_at_us = 0;
  int64_t running_at_us = 0;
  /// Since when its agent is gone (lost); empty while one is there or none
  /// ever connected.
  std::optional<int64_t> agent_gone_since_us;
  std::string terminate_reason;
  int64_t terminate_requested_at_us = 0;
};

/// An open one-time spot request. Fulfilled or cancelled requests leave the
/// state (a fulfilled one lives on as its instance's spot_request_id).
struct spot_request_info {
  std::string id;
  std::string pool;
  int64_t launch_seq = 0;
  int64_t opened_at_us = 0;
};

/// Something that happened to a trial which the experiment's searcher has
/// not taken in yet: a validation ("validation": steps and metrics) or the
/// trial's end ("ended": trial_status is completed, canceled or errored).
/// apply() queues them; experiment_searcher_updated names the last one the
/// searcher consumed, which removes it and those before it. A master that
/// stops between the two finds the input still queued and feeds it again.
struct searcher_input {
  int64_t seq = 0;
  int64_t trial_id = 0;
  /// The searcher's name for the trial (trial_created.request_id).
  std::string request_id;
  std::string kind;
  int64_t steps = 0;
  nlohmann::json metrics;
  std::string trial_status;
};

bool operator==(const searcher_input& a, const searcher_input& b);

struct experiment_info {
  int64_t id = 0;
  std::string pool;
  std::string owner;
  nlohmann::json config = nlohmann::json::object();
  int32_t priority = default_priority;
  double weight = 1.0;
  int32_t max_restarts = 5;
  int32_t slots_per_trial = 1;
  experiment_status status = experiment_status::active;
  std::string status_reason;
  /// Opaque to state/: the searcher's own form.
  nlohmann::json searcher_state = nlohmann::json::object();
  double progress = 0.0;
  /// In creation order.
  std::vector<int64_t> trial_ids;
  int64_t submitted_at_us = 0;
  int64_t state_changed_at_us = 0;
  /// Inputs the searcher has not consumed yet, oldest first, and the seq
  /// of the last input ever queued (seqs count from 1 per experiment).
  std::vector<searcher_input> searcher_inbox;
  int64_t searcher_inputs_queued = 0;
  /// Created before its model definition was stored: no trial of it is
  /// placed until experiment_model_stored.
  bool model_definition_pending = false;
  /// A user's notes (experiment_edited); name, description and labels
  /// live in `config`.
  std::string notes;
  /// Left out of lists unless archived ones are asked for.
  bool archived = false;
  /// The most slots its trials may hold at once (resources.max_slots,
  /// experiment_resources_changed); 0 = no limit.
  int32_t max_slots = 0;
  /// The project it belongs to (experiment_submitted, experiment_moved);
  /// 1, "Uncategorized", for experiments of older logs.
  int64_t project_id = 1;
  /// Its trials run outside the cluster and set their own states; its own
  /// state follows from theirs (state/apply_unmanaged.cpp). Never
  /// scheduled, no searcher. `external_id`: its client's name for it.
  bool unmanaged = false;
  std::string external_id;
  /// experiment_deletion_started: DELETING until the collector has deleted
  /// its files (then experiment_deleted); it takes no command meanwhile.
  bool deleting = false;
};

/// One run of a trial on its slots.
struct allocation_info {
  std::string id;
  std::vector<slot_assignment> assignments;
  int64_t placed_at_us = 0;
  int64_t running_at_us = 0;
  bool preemption_requested = false;
  std::string preemption_reason;
  /// When the trial was asked to stop (its kill deadline counts from it).
  int64_t preemption_requested_at_us = 0;
};

struct checkpoint_info {
  std::string uuid;
  int64_t steps_completed = 0;
  nlohmann::json metadata = nlohmann::json::object();
  int64_t at_us = 0;
  /// completed, deleting (checkpoints_deletion_requested: its files are
  /// being removed), deleted, partially_deleted (checkpoint_files_removed
  /// left some files; metadata["resources"] lists them).
  std::string state = "completed";
  /// The searcher metric validated at this checkpoint's step, when known
  /// (the GC policy ranks checkpoints by it).
  std::optional<double> searcher_metric;
  /// A file removal is under way (checkpoint_files_removal_requested, until
  /// checkpoint_files_removed) with these globs (none: a refresh).
  bool removing_files = false;
  std::vector<std::string> removing_globs;
  /// Every metric of the validation reported at this checkpoint's step,
  /// whichever came first (null when none was): what a checkpoint's
  /// training.validationMetrics shows and its metric sorts read.
  nlohmann::json validation_metrics;
};

/// One allocation as resource accounting remembers it (det resources,
/// /resources/allocation/*): who held how many slots of which pool from
/// when to when. Made by trial_placed with its experiment's owner, labels
/// and workspace as they were then, ended by the trial_exited that frees
/// its slots; kept when its experiment is deleted, as upstream keeps its
/// allocations table. Allocations of logs older than this record are
/// unknown to it.
struct allocation_record {
  std::string id;
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  std::string owner;
  std::string workspace_name;
  std::string pool;
  std::vector<std::string> labels;
  int64_t slots = 0;
  int64_t started_at_us = 0;
  /// 0 while the allocation lives.
  int64_t ended_at_us = 0;
};

/// Checkpoints whose deletion was under way when their experiment was
/// deleted (experiment_deleted): the collector still deletes them from
/// `storage` (the experiment's checkpoint_storage), then
/// checkpoints_deleted drops them.
struct orphan_checkpoints_info {
  int64_t experiment_id = 0;
  std::vector<std::string> uuids;
  nlohmann::json storage = nlohmann::json::object();
};

/// What det-inspect and the searcher need without the full metric history
/// (which lives in the log).
struct metrics_summary {
  int64_t steps_completed = 0;
  int64_t training_reports = 0;
  int64_t validation_reports = 0;
  /// null until the first report of each kind.
  nlohmann::json latest_training;
  nlohmann::json latest_validation;
  /// Per metric group (any group, at most max_summarized_groups), its
  /// summary: state/metric_summary.hpp. A snapshot from before groups were
  /// summarized has none; reports after it are summarized from there on.
  nlohmann::json summaries = nlohmann::json::object();
  /// The searcher metric (config searcher.metric, smaller_is_better
  /// default true) at its best so far.
  std::optional<double> best_validation;
  int64_t best_validation_steps = 0;
};

struct trial_info {
  int64_t id = 0;
  int64_t experiment_id = 0;
  std::string request_id;
  nlohmann::json hparams = nlohmann::json::object();
  trial_status status = trial_status::pending;
  /// Failures counted against the experiment's max_restarts.
  int32_t restarts = 0;
  /// Allocations made so far; the next is "<id>.<runs + 1>".
  int64_t runs = 0;
  /// Set exactly while holds_allocation(status).
  std::optional<allocation_info> allocation;
  std::string last_exit_reason;
  int32_t last_exit_code = 0;
  /// Why the trial errored or was canceled.
  std::string end_reason;
  std::optional<checkpoint_info> latest_checkpoint;
  /// Every checkpoint the trial reported, oldest first (det experiment
  /// list-checkpoints); the last one is latest_checkpoint.
  std::vector<checkpoint_info> checkpoints;
  metrics_summary metrics;
  int64_t created_at_us = 0;
  /// When it reached its end state (0 while live).
  int64_t ended_at_us = 0;
  /// Days its logs are kept after it ends (log_retention_set; -1 for
  /// ever); none: the cluster's default (for ever).
  std::optional<int64_t> log_retention_days;
  /// Left out of run searches unless archived ones are asked for
  /// (runs_archived).
  bool archived = false;
  /// Deleted by a user (runs_deleted): find_trial and every list skip it;
  /// kept only so that its experiment's searcher and checkpoints stay whole.
  bool deleted = false;
  /// The name of the log policy its logs matched last ("" for none), and
  /// the policies matched so far (name, or pattern when unnamed): each
  /// matches once (trial_log_policy_matched).
  std::string log_policy_matched;
  std::vector<std::string> log_policies_fired;
  /// The cancel_retries policy (its name, or its pattern when unnamed)
  /// its logs matched: its next failure ends it. "" for none.
  std::string retries_canceled_by;
  /// Agents its allocations are kept off (exclude_node policies).
  std::vector<std::string> excluded_agents;
  /// An unmanaged trial's client's name for it (PUT /api/v1/trials), and
  /// when its client last set its state.
  std::string external_id;
  int64_t last_activity_us = 0;
  /// Each `det experiment continue` of it opens a new task (upstream's
  /// "<task id>-<n>"): when each began, and when the one before it had
  /// ended (experiment_continued).
  std::vector<int64_t> continued_at_us;
  std::vector<int64_t> ended_before_continue_us;
};

/// A user account. `id` is its creation order (1 = first user).
struct user_info {
  int64_t id = 0;
  std::string username;
  bool admin = false;
  bool active = true;
  /// conf/password_hash's stored form; "" = blank password.
  std::string password_hash;
  int64_t created_at_us = 0;
  int64_t modified_at_us = 0;
  std::string display_name{};
  /// The POSIX identity its trials run as on agents (user_edited); -1 and
  /// "" = the agent's own.
  int64_t agent_uid = -1;
  int64_t agent_gid = -1;
  std::string agent_user{};
  std::string agent_group{};
};

bool operator==(const user_info& a, const user_info& b);

/// A long-lived access token (access_token_created). Only its hash is kept.
struct access_token_info {
  int64_t id = 0;
  std::string username;
  std::string token_hash;
  std::string description;
  int64_t created_at_us = 0;
  /// 0 = never expires.
  int64_t expires_at_us = 0;
  bool revoked = false;
  int64_t revoked_at_us = 0;
};

bool operator==(const access_token_info& a, const access_token_info& b);

/// The cluster-wide message (cluster_message_set).
struct cluster_message_info {
  std::string message;
  int64_t start_us = 0;
  int64_t end_us = 0;
  std::string username;
  int64_t set_at_us = 0;
};

bool operator==(const cluster_message_info& a, const cluster_message_info& b);

bool operator==(const launch_info& a, const launch_info& b);
bool operator==(const pool_info& a, const pool_info& b);
bool operator==(const agent_info& a, const agent_info& b);
bool operator==(const instance_info& a, const instance_info& b);
bool operator==(const spot_request_info& a, const spot_request_info& b);
bool operator==(const experiment_info& a, const experiment_info& b);
bool operator==(const allocation_info& a, const allocation_info& b);
bool operator==(const checkpoint_info& a, const checkpoint_info& b);
bool operator==(const orphan_checkpoints_info& a,
                const orphan_checkpoints_info& b);
bool operator==(const allocation_record& a, const allocation_record& b);
bool operator==(const metrics_summary& a, const metrics_summary& b);
bool operator==(const trial_info& a, const trial_info& b);

} // namespace det::state
