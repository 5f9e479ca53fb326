#pragma once

// Read-only questions about a cluster_state, for the actors (pool scheduler,
// provisioner, trial and experiment actors) and det-inspect. Pure functions
// of the state (and of `now_us` where a timer is involved); none changes it.
// Pointers returned point into the state and live until it next changes.

#include "state/cluster_state.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace det::state {

// -- identities derived from events ------------------------------------------

/// "<trial_id>.<run>": the allocation id of a trial's run (1-based).
std::string allocation_id_for(int64_t trial_id, int64_t run);

/// A trial's task id as clients see it: upstream's "<experiment id>.<uuid>"
/// shape (the det CLI takes nothing else for a task), the uuid being
/// 00000000-0000-4000-8000-<the trial id in 12 hex digits>.
std::string task_id_of(int64_t experiment_id, int64_t trial_id);

/// The trial id in a task id of task_id_of()'s shape, or in a bare trial id
/// ("7", what this master said before); nullopt for anything else.
std::optional<int64_t> trial_of_task_id(const std::string& text);

/// Trial `t`'s task ids, one per run of it as upstream counts them: its
/// task_id_of(), then "<that>-<n>" for the n-th `det experiment continue`.
std::vector<std::string> trial_task_ids(const trial_info& t);

/// The trial and the run (0: the first; n: after the n-th continue) a task
/// id of trial_task_ids()'s shapes names; nullopt for another id.
std::optional<std::pair<int64_t, size_t>>
trial_run_of_task_id(const std::string& text);

/// The allocation id trial_placed must carry for `t`'s next run.
std::string next_allocation_id(const trial_info& t);

/// The EC2 ClientToken for launch `launch_seq` of `pool` in cluster
/// `cluster_id`: at most 64 printable ASCII characters, the same for the
/// same arguments (so a retried RunInstances cannot launch twice).
std::string make_client_token(const std::string& cluster_id,
                              const std::string& pool, int64_t launch_seq);

/// The launch_seq the next instance_launch_requested of `pool` must carry;
/// 0 for an unknown pool.
int64_t next_launch_seq(const cluster_state& s, const std::string& pool);

/// One above the largest experiment (trial) id so far; 1 when none.
int64_t next_experiment_id(const cluster_state& s);
int64_t next_trial_id(const cluster_state& s);

// -- lookups ------------------------------------------------------------------

/// nullptr when absent.
const pool_info* find_pool(const cluster_state& s, const std::string& name);
const agent_info* find_agent(const cluster_state& s, const std::string& id);
const instance_info* find_instance(const cluster_state& s,
                                   const std::string& id);
const experiment_info* find_experiment(const cluster_state& s, int64_t id);
const trial_info* find_trial(const cluster_state& s, int64_t id);
/// find_trial, except for a trial a user deleted (runs_deleted): what the
/// API shows. Decisions use find_trial (a deleted trial still holds
/// checkpoints its experiment's GC and deletion take care of).
const trial_info* find_listed_trial(const cluster_state& s, int64_t id);
/// Whether the instance agent `a` runs on (agent_connected.instance_id, or
/// the instance of its own id, as the local provider names them) is being
/// terminated: no new work goes to it.
bool on_terminating_instance(const cluster_state& s, const agent_info& a);

/// The bytes checkpoint `c` holds, from the sizes its metadata's
/// `resources` lists (numbers, or decimal text as the harness writes
/// them); 0 once it is deleted. The one rule behind an experiment's
/// checkpointSize, a trial's totalCheckpointSize and a run's.
int64_t checkpoint_bytes(const checkpoint_info& c);
/// Whether checkpoint `c` still counts toward checkpointCount (it is not
/// deleted).
bool checkpoint_kept(const checkpoint_info& c);

/// The unmanaged experiment a client named `external_id`, or nullptr.
const experiment_info*
find_unmanaged_experiment(const cluster_state& s,
                          const std::string& external_id);
/// The trial of unmanaged experiment `e` its client named `external_id`.
const trial_info* find_unmanaged_trial(const cluster_state& s,
                                       const experiment_info& e,
                                       const std::string& external_id);

/// The trial holding live allocation `allocation_id`, or nullptr.
const trial_info* trial_of_allocation(const cluster_state& s,
                                      const std::string& allocation_id);

/// The task holding live allocation `allocation_id` ("<task id>.<n>"),
/// or nullptr.
const task_info* task_of_allocation(const cluster_state& s,
                                    const std::string& allocation_id);

// -- agents and slots ---------------------------------------------------------

int32_t used_slots(const agent_info& a);
/// Slots neither used nor disabled (nor past the agent's slot_limit).
int32_t free_slots(const agent_info& a);
/// Indexes of the free slots, ascending.
std::vector<int64_t> free_slot_ids(const agent_info& a);
/// How many slots may take work: the slots, or fewer while a shrink waits
/// for slots in use (agent_info::slot_limit).
int64_t slot_capacity(const agent_info& a);
/// Connected and enabled: trial_placed may use its free slots.
bool schedulable(const agent_info& a);

/// Agents of a pool, by id.
std::vector<const agent_info*> agents_of_pool(const cluster_state& s,
                                              const std::string& pool);

/// Free slots on schedulable agents of the pool.
int64_t free_slots_of_pool(const cluster_state& s, const std::string& pool);

/// Disconnected agents whose reconnect deadline is at or before `now_us`:
/// the agent actor appends agent_lost for each.
std::vector<std::string> agents_past_reconnect_deadline(const cluster_state& s,
                                                        int64_t now_us);

/// Live allocations with a slot on agent `agent_id`.
std::vector<std::string> allocations_on_agent(const cluster_state& s,
                                              const std::string& agent_id);

// -- experiments and trials ---------------------------------------------------

/// Trials of an experiment, in creation order.
std::vector<const trial_info*> trials_of_experiment(const cluster_state& s,
                                                    int64_t experiment_id);
/// The ids of `e`'s trials but those users deleted (runs_deleted).
std::vector<int64_t> listed_trial_ids(const cluster_state& s,
                                      const experiment_info& e);
/// trials_of_experiment without the trials users deleted (runs_deleted).
std::vector<const trial_info*> listed_trials_of(const cluster_state& s,
                                                int64_t experiment_id);

/// The pending trials of `e` a scheduling pass may place, in trial id
/// order: all of them, or with a max_slots limit only those that fit under
/// it beside its trials holding slots (whatever the experiment's state).
std::vector<const trial_info*> offered_trials(const cluster_state& s,
                                              const experiment_info& e);

/// Pending trials of ACTIVE experiments of `pool`, in scheduling order:
/// priority (lower number first), then experiment id, then trial id. An
/// experiment with a max_slots limit offers only the pending trials that
/// fit under it beside its trials holding slots.
std::vector<const trial_info*> pending_trials(const cluster_state& s,
                                              const std::string& pool);

/// Trials holding an allocation in `pool`.
std::vector<const trial_info*> allocated_trials(const cluster_state& s,
                                                const std::string& pool);

/// Trials of the experiment that have not ended.
int64_t live_trial_count(const cluster_state& s, int64_t experiment_id);

// -- instances ----------------------------------------------------------------

/// Instances of a pool, by id.
std::vector<const instance_info*> instances_of_pool(const cluster_state& s,
                                                    const std::string& pool);

/// Instances plus spot requests still expected from outstanding launches:
/// the provisioner's "recently launched" count beyond listed instances.
int64_t outstanding_launch_count(const cluster_state& s,
                                 const std::string& pool);

/// Since when the instance's agent has had no used slot; empty when it has
/// no agent or the agent is busy.
std::optional<int64_t> instance_idle_since(const cluster_state& s,
                                           const instance_info& i);

/// Instances (not terminating) whose agent has been idle longer than the
/// pool's max_idle_agent_period_s at `now_us`, oldest idle first.
std::vector<const instance_info*> long_idle_instances(const cluster_state& s,
                                                      const std::string& pool,
                                                      int64_t now_us);

/// Instances (not terminating) with no agent for longer than the pool's
/// max_agent_starting_period_s since launch at `now_us`.
std::vector<const instance_info*>
instances_past_starting_period(const cluster_state& s, const std::string& pool,
                               int64_t now_us);

/// Task `id` and every task under it (parent_id links, generic tasks),
/// parents before their children; empty for an unknown task.
std::vector<std::string> task_subtree(const cluster_state& s,
                                      const std::string& id);

/// The topmost ancestor of task `id` that the state still knows (`id`
/// itself when it has no known parent).
std::string task_root(const cluster_state& s, const std::string& id);

} // namespace det::state
