#pragma once

// The master's decisions as plain code (no CAF): each command turns what
// happened into domain events and the effects to carry out once those
// events are durable. The master actor is thin wiring around it: it sends
// the events to the event writer and performs the effects only after the
// writer's acknowledgement (the write-ahead rule).
//
// The core applies each event to its cluster_state as it decides it
// (state::apply is the validator: an event it refuses is never returned),
// so a later decision in the same command, or the next command, sees it.
// Positions are predicted (state.position + 1, ...): the master is the one
// writer, appends are acknowledged in order, and the actor checks the
// acknowledged positions against the prediction. If an append fails, the
// in-memory state is ahead of the log, and the actor stops; a restart
// replays the log, so nothing the outside world saw is lost.
//
// The expensive or per-entity parts run on their own actors, and come back
// as proposals the core checks against its state: scheduling passes
// (apply_schedule), experiments' searcher steps (apply_searcher_step) and
// trials' lifecycle steps (apply_trial_step). core_config's inline_*
// switches run them in the same decision instead, for plain-code use.
//
// Owned by the master actor; not thread-safe.

#include "core/commands.hpp"
#include "core/config_policies.hpp"
#include "core/effects.hpp"
#include "core/experiment_searcher.hpp"
#include "core/pool_views.hpp"
#include "core/record_models.hpp"
#include "core/records.hpp"
#include "core/trial_lifecycle.hpp"
#include "core/webhooks.hpp"
#include "messages/errc.hpp"
#include "messages/events.hpp"
#include "policy/consolidation.hpp"
#include "policy/pool_scheduler.hpp"
#include "state/cluster_state.hpp"

#include <caf/error.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace det {

/// The id the pool scheduler knows a task's allocation by ("task:<id>";
/// trials are numbers).
std::string scheduler_id_of_task(const std::string& task_id);

/// What a command decided.
struct decision {
  /// Events to append, in order (already applied to the core's state).
  std::vector<domain_event> events;
  /// Effects to carry out once the events are durable.
  std::vector<effect> effects;
  /// For commands that answer a caller: the answer, or why not.
  nlohmann::json reply;
  caf::error refusal;
  /// Pools that need a scheduling pass (when the core does not schedule
  /// inline: the master runs it on the pool's actor).
  std::set<std::string> schedule;
  /// Experiments whose searcher has inputs to take, or has to start (when
  /// the core does not run searchers inline: the master hands the inbox to
  /// the experiment's actor and its step to apply_searcher_step()).
  std::set<int64_t> searchers;
  /// Exited trials waiting for their lifecycle step (when the core does
  /// not settle trials inline: their actors decide, and apply_trial_step()
  /// takes the result).
  std::map<int64_t, trial_facts> trials;
};

/// Appends what `more` decided (after `d`'s own events) to `d`.
void absorb(decision& d, decision more);

/// `d` with its refusal set to `code` and `why`: a command's early return.
decision with_refusal(decision& d, errc code, std::string why);

struct core_config {
  std::string cluster_id;
  /// The cluster's UUID if the log has none yet, and this process's own
  /// (master_started; the caller makes them: the core draws nothing).
  std::string new_cluster_uuid;
  std::string master_uuid;
  std::string host;
  int64_t pid = 0;
  std::string master_version = "0.1.0";
  /// The pools from master.yaml (scheduler, provider, timeouts).
  std::vector<pool_configured> pools;
  /// How long a disconnected agent keeps its trials.
  int64_t agent_reconnect_wait_us = 25 * 1000000LL;
  /// Seed for experiments' searchers (each adds its experiment id).
  uint64_t seed = 0;
  /// A trial asked to stop that has not exited after this long is killed.
  int64_t preemption_timeout_us = 60 * 1000000LL;
  /// A RUNNING unmanaged trial not heard from (heartbeat or state) for
  /// this long is given up: ERROR.
  int64_t unmanaged_lost_after_us = 5 * 60 * 1000000LL;
  /// How long a terminated task stays listed (upstream: 24 h).
  int64_t task_retention_us = 24 * 3600 * 1000000LL;
  /// Whether a smaller resources.priority is scheduled first (det-agents;
  /// false under Kubernetes): the side a config policy's priority_limit
  /// bounds.
  bool priority_smaller_is_higher = true;
  /// Scheduler settings by pool name (default: priority, no preemption).
  std::map<std::string, policy::scheduler_config> schedulers;
  /// Consolidation settings of the provisioned pools that turned it on
  /// (master.yaml's provider consolidate: true); a pool not here is
  /// never consolidated. slots_per_instance and min_instances come from
  /// the pool's own configuration.
  std::map<std::string, policy::consolidation_config> consolidation;
  /// True: decisions that may place trials run the pool's scheduling pass
  /// at once (plain-code use: tests, tools). False: they name the pool in
  /// decision::schedule, and the caller runs the pass (on the pool's
  /// actor) and hands the result to apply_schedule().
  bool inline_scheduling = true;
  /// True: the core holds every live experiment's searcher and feeds it in
  /// the same decision (plain-code use). False: decision::searchers names
  /// them, and the experiment actors propose their steps.
  bool inline_searchers = true;
  /// True: an exited trial is restarted, errored or canceled in the same
  /// decision. False: decision::trials names it for its trial actor.
  bool inline_trials = true;
  /// master.yaml's launch_error: true ends a trial that can never fit its
  /// provisioned pool in error; false lets it wait (it was created with a
  /// warning).
  bool launch_error = true;
  /// The experiments whose model definitions the store holds, among those
  /// the log shows pending (the master's start-up reads the store). With
  /// it, start() settles each pending experiment: stored, or ERROR. Without
  /// it (tools, tests of other things), pending experiments stay pending.
  std::optional<std::set<int64_t>> model_definitions_stored;
};

class master_core {
public:
  /// Takes over a state rebuilt from the log (empty for a new cluster).
  master_core(state::cluster_state st, core_config cfg);

  const state::cluster_state& state() const { return st_; }
  const core_config& config() const { return cfg_; }

  /// Once at start: master_started, pools that are new or changed, and
  /// agent_disconnected (with a reconnect deadline) for every agent that
  /// was connected to the previous master.
  decision start(int64_t now_us);

  // -- users --------------------------------------------------------------

  /// A validated experiment: its filled-in config, pool, resources. The
  /// reply is {"experiment_id": N}.
  decision submit_experiment(const nlohmann::json& config,
                             const std::string& owner, int64_t now_us);
  /// Experiment creation as one command: the experiment, PAUSED when
  /// `activate` is false, and (with `model_definition_pending`) held back
  /// from scheduling until model_definition_stored, in one append.
  /// `project_id` 0: the config's `workspace` and `project` names, or
  /// project 1; a project that does not exist is errc::not_found, an
  /// archived one, or a pool bound to other workspaces, invalid_argument.
  decision create_experiment(const nlohmann::json& config,
                             const std::string& owner, bool activate,
                             bool model_definition_pending, int64_t now_us,
                             int64_t project_id = 0);
  /// The model definition of a pending experiment is stored: its trials
  /// may be placed. A no-op for an experiment with nothing pending.
  decision model_definition_stored(int64_t id, int64_t now_us);
  /// It could not be stored (or is missing after a restart): the experiment
  /// ends in ERROR with `why`.
  decision model_definition_lost(int64_t id, const std::string& why,
                                 int64_t now_us);
  decision pause_experiment(int64_t id, int64_t now_us);
  decision activate_experiment(int64_t id, int64_t now_us);
  decision kill_experiment(int64_t id, int64_t now_us);
  /// det experiment cancel: STOPPING_CANCELED, running trials asked to
  /// checkpoint and stop (not killed), pending ones canceled; CANCELED once
  /// none is live.
  decision cancel_experiment(int64_t id, int64_t now_us);
  decision kill_trial(int64_t id, int64_t now_us);
  /// det experiment delete: an ended experiment and its trials leave the
  /// state (errc::invalid_argument while it runs), its completed
  /// checkpoints asked deleted first (checkpoints_deletion_requested,
  /// reason "delete"): the checkpoint collector deletes their files, also
  /// after the experiment is gone (orphan_checkpoints). The reply counts
  /// them ({"checkpointsDeleted": N}).
  decision delete_experiment(int64_t id, const std::string& username,
                             int64_t now_us);
  /// An experiment's scheduling (an edit's resources, det job update):
  /// the priority, weight and slot limit `resources` sets (checked by
  /// parse_resources_edit); an ended experiment's are refused. Writes
  /// experiment_resources_changed with all three as they are after the
  /// change (nothing when none changes), then schedules the pool.
  decision change_resources(int64_t id, const resources_edit& resources,
                            const std::string& username, int64_t now_us);
  /// Archives (or unarchives) an ended experiment; one still live is
  /// errc::invalid_argument. The same flag again writes nothing.
  decision archive_experiment(int64_t id, bool archived,
                              const std::string& username, int64_t now_us);
  /// `det experiment continue`: an ended single, grid or random experiment
  /// runs again with `override_config` merged over its config (only for
  /// single; the API validated the merged config): one
  /// experiment_continued (core/master_core_continue.cpp). Refusals:
  /// not_found, failed_precondition (not ended, archived, nothing left to
  /// continue), invalid_argument (the searcher, the override). Replies
  /// {"experiment_id", "trial_ids"}.
  decision continue_experiment(int64_t id,
                               const nlohmann::json& override_config,
                               const std::string& username, int64_t now_us);
  /// Users, sessions, access tokens and the cluster message: `ev` is a
  /// user_created, user_password_changed, user_edited, session_started,
  /// session_ended, access_token_created, access_token_changed or
  /// cluster_message_set, checked against the master's state (not a read
  /// copy): a user that exists (or a rename onto one) is errc::conflict, an
  /// unknown user or token errc::not_found, a username or display name
  /// upstream reserves (core/user_names.hpp; judged on the account as it
  /// was) errc::invalid_argument; ending a session that is not
  /// live, or a token change that changes nothing, writes nothing. The core
  /// numbers new access tokens (the event's token_id is ignored). Any other
  /// event is errc::invalid_argument.
  decision change_users(const domain_event& ev);
  /// det slot enable/disable: a disabled slot takes no new work; without
  /// `drain` the trial on it is killed (reason "slot_disabled") and placed
  /// again elsewhere, without counting a restart. An unknown agent or slot is
  /// errc::not_found; a slot already so changes nothing.
  decision set_slot_enabled(const std::string& agent_id, int64_t slot_id,
                            bool enabled, bool drain, int64_t now_us);
  // -- tasks (core/master_core_tasks.cpp) ---------------------------------

  /// task_launched (QUEUED), then a scheduling pass of its pool. An unknown
  /// pool is errc::invalid_argument naming resources.resource_pool, an id
  /// in use errc::conflict. Replies {"task_id"}.
  decision launch_task(const task_launch& req, int64_t now_us);
  /// Kills a task: a queued one exits at once (killed), a placed one is
  /// asked to stop (task_kill_requested, a kill order to its agent) and
  /// exits when its agent reports it; one ending or ended is left alone.
  /// `reason` is why (task_kill_requested, and the exit status "killed:
  /// <reason>"); empty is "killed by user". An unknown task is
  /// errc::not_found. Replies {"task_id"}.
  decision kill_task(const std::string& id, const std::string& username,
                     const std::string& reason, int64_t now_us);
  /// The command task_kill (a user's kill, an idle timeout):
  /// kill_task with `reason` for the task and every task under it
  /// (parent_id), or, `from_root`, for the whole tree from its topmost
  /// ancestor. An unknown task is errc::not_found.
  decision kill_task_tree(const std::string& id, const std::string& username,
                          const std::string& reason, bool from_root,
                          int64_t now_us);
  /// Pauses a generic task (any other is errc::invalid_argument; one
  /// launched with no_pause errc::failed_precondition): a queued one exits
  /// "paused" at once, a placed one is asked to stop (task_kill_requested
  /// with pause) and exits "paused" when its agent reports it. One that
  /// ended otherwise is errc::failed_precondition; one paused or pausing
  /// is left alone. The tasks under it launched with pauses_with_parent
  /// pause with it. Replies {"task_id"}.
  decision pause_task(const std::string& id, const std::string& username,
                      int64_t now_us);
  /// task_unpaused for a paused generic task and each paused task under it
  /// (QUEUED again, its next allocation), then a pass; a task that is not
  /// paused is errc::failed_precondition. Replies {"task_id"}.
  decision unpause_task(const std::string& id, const std::string& username,
                        int64_t now_us);
  /// The task's service answers (POST /allocations/{id}/ready): task_ready
  /// once. An allocation no live task holds is errc::not_found.
  decision task_became_ready(const std::string& allocation_id,
                             const std::string& proxy_host, int32_t proxy_port,
                             int64_t now_us);
  /// task_priority_set (1..99, else errc::invalid_argument), then a pass.
  decision set_task_priority(const std::string& id, int32_t priority,
                             const std::string& username, int64_t now_us);
  /// task_forgotten for every task terminated at or before
  /// `older_than_us`.
  decision forget_tasks(int64_t older_than_us, int64_t now_us);

  // -- agents -------------------------------------------------------------

  decision agent_connected(const std::string& id, const std::string& pool,
                           int32_t slots, const std::string& slot_type,
                           const std::string& instance_id,
                           const std::vector<reported_allocation>& running,
                           int64_t now_us);
  decision agent_disconnected(const std::string& id, const std::string& why,
                              int64_t now_us);
  /// The agent's spot instance is about to be reclaimed: drain it (no new
  /// placements; agent_disabled with drain) and ask each trial running
  /// there to checkpoint now (trial_preemption_requested, reason
  /// spot_interruption, plus a preempt order), all in one append. Trials
  /// already stopping are left as they are. The reply is {"trials": N},
  /// the trials asked. An unknown agent is errc::not_found.
  decision spot_interruption(const std::string& agent_id, int64_t now_us);
  /// One consolidation pass of `pool` (policy::plan_consolidation, off
  /// unless core_config::consolidation names the pool): each agent the
  /// plan empties is drained (agent_disabled with drain) and each trial
  /// on it asked to checkpoint (trial_preemption_requested, reason
  /// "consolidation", plus a preempt order), in one append; the scheduler
  /// places them again like any preempted trial, and the drained agent,
  /// once empty, is the idle rule's to terminate. An agent's under-use is
  /// observed by these passes (in memory: a restart starts its period
  /// again). The reply is {"agents": [...], "trials": N}. tick() runs it
  /// for every pool that turned it on. (core/master_core_consolidation.cpp)
  decision consolidate_pool(const std::string& pool, int64_t now_us);

  /// An operator enables or disables an agent (`det agent enable/disable`).
  /// Disabled, it is given no new trials. With `drain` its running trials
  /// finish; without, each is killed at once (reason "agent_disabled", as
  /// upstream's force-kill) and placed again elsewhere, resuming from its
  /// latest checkpoint; that exit does not count against max_restarts. Enabling
  /// lets the scheduler use it at once. Asking for the state it is in writes
  /// nothing. An unknown agent is errc::not_found; a disconnected one
  /// errc::invalid_argument.
  decision set_agent_enabled(const std::string& agent_id, bool enabled,
                             bool drain, int64_t now_us);
  /// The agent has `slots` slots now (a Kubernetes pool's nodes changed):
  /// agent_slots_changed, then a scheduling pass of its pool. The count it
  /// has already writes nothing; an unknown agent is errc::not_found, a
  /// negative or huge count errc::invalid_argument (master_core_capacity.cpp).
  decision set_agent_slots(const std::string& agent_id, int32_t slots,
                           int64_t now_us);

  // -- trials (reported by agents and trial processes) -------------------

  decision allocation_running(const std::string& allocation_id, int64_t now_us);
  /// `exit_code` 0 means completed unless the trial was asked to stop, in
  /// which case the reason is what it was asked for. An exit for an
  /// allocation that has already ended (a repeated report) writes nothing.
  decision allocation_exited(const std::string& allocation_id,
                             int32_t exit_code, int64_t now_us);
  decision checkpoint_reported(const std::string& allocation_id,
                               const std::string& uuid, int64_t steps,
                               const nlohmann::json& metadata, int64_t now_us);
  decision metrics_reported(const std::string& allocation_id,
                            const std::string& kind, int64_t steps,
                            const nlohmann::json& metrics, int64_t now_us);

  // -- commands (core/commands.hpp) ------------------------------------

  /// Decides `c` by the decider of its aggregate (master_core_commands.cpp).
  decision decide(const command& c, int64_t now_us);

  // -- time ---------------------------------------------------------------

  /// Reconnect deadlines, unmanaged trials gone silent, consolidation of
  /// the pools that turned it on, then a scheduling pass over every pool.
  decision tick(int64_t now_us);

  // -- scheduling passes ------------------------------------------------

  /// The pool as the scheduler sees it now; empty if nothing is pending.
  policy::pool_snapshot pool_snapshot_of(const std::string& pool) const;
  /// The same whether or not anything is pending.
  policy::pool_snapshot pool_view_snapshot(const std::string& pool) const;
  /// What changed in the pool's view since the last call for it, for an
  /// incremental scheduler (core/pool_views.hpp); a resync the first time.
  policy::pool_delta pool_delta_of(const std::string& pool);
  /// Pending entries in the pool's view as of its last delta.
  size_t pending_in_view(const std::string& pool) const {
    return views_.pending_in(pool);
  }
  /// The next delta of `pool` is a resync.
  void forget_pool_view(const std::string& pool) { views_.forget(pool); }
  /// The pool's scheduler settings (config overrides, then the pool's).
  policy::scheduler_config scheduler_of(const std::string& pool) const;
  /// Turns a pass computed on an earlier snapshot into events. Placements,
  /// preemptions and "never fits" that the state has made stale meanwhile
  /// (trial no longer pending, slot taken, agent gone) are skipped; the
  /// next pass sees them again.
  decision apply_schedule(const std::string& pool,
                          const policy::schedule_result& result,
                          int64_t now_us);

  /// Batches trial `id` should train to in total; 0 when unknown.
  int64_t target_length(int64_t trial_id) const;

  // -- searchers ----------------------------------------------------------

  /// Turns an experiment searcher's step into events: its trials, closes
  /// and stops, and experiment_searcher_updated consuming its inputs. A
  /// step that does not follow the state (an older searcher's, or one
  /// already applied) is refused with errc::conflict and changes nothing;
  /// the experiment actor then starts again from the state. Steps of an
  /// ended experiment change nothing.
  decision apply_searcher_step(const searcher_step& step, int64_t now_us);

  // -- trial lifecycle ----------------------------------------------------

  /// Turns a trial actor's step into its event. A step for a trial that is
  /// no longer exited, or for an older run, is refused (errc::conflict).
  decision apply_trial_step(const trial_step& step, int64_t now_us);

private:
  // Agent `id`, or nullptr with d.refusal (not found) set.
  const state::agent_info* agent_or_refuse(decision& d, const std::string& id);
  // Asks every live trial on the agent to checkpoint and stop, or with
  // `kill` kills it at once (trials already asked are left); returns how
  // many were asked.
  int64_t stop_trials_on(decision& d, const std::string& agent_id,
                         const std::string& reason, bool kill, int64_t now_us);
  // Applies `ev` and records it; false (and d.refusal) if refused.
  bool emit(decision& d, domain_event ev);
  // A fact reported from outside (a provisioner's cycle): applied and
  // recorded if it still follows from the state, else left out with why
  // in `skipped` (no refusal).
  bool emit_if_it_follows(decision& d, domain_event ev,
                          std::vector<std::string>& skipped);
  // agent_lost for `agent_id`, then the exits of the trials it ran. With
  // `skipped`, an agent already gone is noted there instead of refused.
  void lose_agent(decision& d, const std::string& agent_id,
                  const std::string& reason, int64_t now_us,
                  std::vector<std::string>* skipped = nullptr);
  // The deciders of decide(), one overload per command (the list is
  // core/master_core_on.hpp, included here, inside the class).
#include "core/master_core_on.hpp"
  /// The unmanaged trial `id`, its client heard from now (a heartbeat),
  /// or nullptr with d.refusal set.
  const state::trial_info* heard_unmanaged_trial(decision& d, int64_t id,
                                                 int64_t now_us);
  /// The events of `out` appended all or nothing, its reply, or its
  /// refusal.
  decision recorded(record_outcome out);
  /// A report's event when it still follows (`ev` set), else nothing
  /// (master_core_commands.cpp).
  template <class E> decision emitted(std::optional<E> ev);
  /// Pauses one task as pause_task says, without its children; false
  /// after a refusal (or a failed emit) in `d`.
  bool pause_one(decision& d, const state::task_info& t,
                 const std::string& username, int64_t now_us);
  // Inline searchers: feeds each experiment d.searchers names (until none
  // is left) and returns d. Otherwise returns d as it is.
  decision drive(decision d, int64_t now_us);
  bool searcher_closed(const state::trial_info& t) const;
  void settle(decision& d, const trial_step& step, int64_t now_us);
  void after_trial_exit(decision& d, int64_t trial_id, int64_t now_us);
  /// The exit of a live allocation as trial_exited (and what follows);
  /// false when `alloc` is not live (nothing emitted).
  bool exit_allocation(decision& d, const std::string& alloc, int32_t exit_code,
                       int64_t now_us);
  /// start(): model_definitions_stored applied to pending experiments.
  void settle_model_definitions(decision& d, int64_t now_us);
  void maybe_finish_experiment(decision& d, int64_t experiment_id,
                               int64_t now_us);
  void schedule_pool(decision& d, const std::string& pool, int64_t now_us);
  void apply_pass(decision& d, const std::string& pool,
                  const policy::schedule_result& result, int64_t now_us);
  bool placement_still_valid(const policy::placement& p) const;
  /// Orders the trial's allocation started: on every agent it spans, or,
  /// given `only_agent`, on that one alone.
  void start_effect(decision& d, int64_t trial_id,
                    const std::string& only_agent = {});
  /// kill_experiment (kill) and cancel_experiment (!kill).
  decision stop_experiment(int64_t id, bool kill, int64_t now_us);
  void stop_trial(decision& d, int64_t trial_id, const std::string& reason,
                  bool kill, int64_t now_us);
  // consolidate_pool's pass, into d; returns its reply.
  nlohmann::json consolidate_into(decision& d, const std::string& pool,
                                  int64_t now_us);
  // The trial holding `alloc`, or nullptr with d.refusal set.
  const state::trial_info* live_trial(decision& d, const std::string& alloc);
  // A user's pause/activate: the experiment after the change, or nullptr
  // with d.refusal naming why (not found, or not allowed from its state).
  const state::experiment_info* user_state_change(decision& d, int64_t id,
                                                  const char* to,
                                                  const char* verb,
                                                  int64_t now_us);

  /// create_experiment: resolves `project_id` (0: from the config's names,
  /// else 1) and checks the project and the pool's bindings. Returns why
  /// not ("" when fine); sets project_id to -1 when the project is missing.
  std::string project_for(const nlohmann::json& config, const std::string& pool,
                          int64_t& project_id) const;
  /// The experiment_submitted for `config` (its pool, resources, project),
  /// or d.refusal set.
  experiment_submitted submission(decision& d, const nlohmann::json& config,
                                  const std::string& owner, int64_t project_id,
                                  int64_t now_us) const;
  /// The experiment a user's command names, or nullptr with d.refusal set:
  /// not found, being deleted or, given a `verb`, unmanaged
  /// (unmanaged_refusal).
  const state::experiment_info*
  experiment_or_refuse(decision& d, int64_t id,
                       const char* verb = nullptr) const;
  /// The trial a user's command names, likewise.
  const state::trial_info* trial_or_refuse(decision& d, int64_t id,
                                           const char* verb = nullptr) const;
  /// Sets d.refusal and says true when `e` is unmanaged: its trials set
  /// their own states, a user cannot `verb` it from here.
  bool unmanaged_refusal(decision& d, const state::experiment_info& e,
                         const char* verb) const;
  /// RUNNING unmanaged trials not heard from for unmanaged_lost_after_us
  /// end in ERROR (upstream's 5 minutes).
  void sweep_lost_unmanaged(decision& d, int64_t now_us);
  /// Terminated tasks past core_config::task_retention_us leave the state
  /// (task_forgotten): upstream lists them for 24 h.
  void sweep_old_tasks(decision& d, int64_t now_us);
  void forget_ended_before(decision& d, int64_t older_than_us, int64_t now_us);

  // Tasks (core/master_core_tasks.cpp). The agent reported a task's
  // allocation running / exited: its events; false when no live task holds
  // `alloc` (then it may be a trial's).
  bool task_running_reported(decision& d, const std::string& alloc,
                             int64_t now_us);
  bool task_exit_reported(decision& d, const std::string& alloc,
                          int32_t exit_code, int64_t now_us);
  void task_start_effect(decision& d, const std::string& task_id);
  // Queued tasks with slots (pending) and placed ones (running, never
  // preemptible) of `pool`, for its scheduling pass.
  void add_tasks_to(policy::pool_snapshot& snap, const std::string& pool) const;
  bool has_queued_tasks(const std::string& pool) const;
  // A pass's placement of a task: task_placed and its start order; false
  // when `p` places a trial.
  bool place_task(decision& d, const policy::placement& p, int64_t now_us);
  // Zero-slot tasks take no slot: the pool's first schedulable agent.
  void place_zero_slot_tasks(decision& d, const std::string& pool,
                             int64_t now_us);
  // A (re)connecting agent that does not report a task placed on it: the
  // start order again (never started), or the task lost.
  void reconcile_tasks_on(decision& d, const std::string& agent_id,
                          const std::vector<reported_allocation>& reported,
                          int64_t now_us);

  state::cluster_state st_;
  core_config cfg_;
  /// What each pool's incremental scheduler has seen (pool_delta_of).
  pool_views views_;
  /// Inline searchers by experiment (config::inline_searchers only).
  std::map<int64_t, experiment_searcher> searchers_;
  /// Allocations past their preemption deadline already sent a kill.
  std::set<std::string> killed_;
  /// When this master last heard from each unmanaged trial (a heartbeat
  /// writes nothing); none: its last state change or this master's start.
  std::map<int64_t, int64_t> unmanaged_heard_;
  /// Since when each agent has been under-used, as consolidation passes
  /// saw it.
  std::map<std::string, int64_t> underused_since_us_;
  int64_t started_at_us_ = 0;
};

} // namespace det
