#pragma once

// Consolidation of a provisioned pool: which running allocations to move
// (checkpoint, stop, restart elsewhere) so that a nearly empty instance
// becomes empty and can be terminated. The fragmentation it undoes: long
// single-slot trials that each keep an 8-slot instance billed while the
// pool's other instances have room for them. Like Karpenter's
// consolidateAfter, an instance must have been under-used for a while
// before anything on it is moved.
//
// Pure: the caller passes the pool as the scheduler sees it, when each
// allocation's current run began, since when each agent has been
// under-used, and the time. No threads, no I/O. Deterministic: ties are
// broken by agent and allocation id.
//
// An agent is emptied only when every condition holds:
// - nothing is pending (a waiting allocation is better served by the room
//   than a termination is; the caller leaves out allocations that can
//   never fit);
// - it has been under-used (used slots at most max_used_fraction of its
//   slots, some in use) for consolidate_after;
// - every allocation on it is preemptible, not already preempting, and
//   held on this agent alone (gangs move whole; a gang spanning agents is
//   never moved), and they hold every slot in use there (an allocation
//   the caller did not list keeps the agent);
// - every one of them fits, now, on the free slots of other schedulable
//   agents that are busy and stay (not idle ones, which the idle rule may
//   reap, nor agents emptied in the same pass), best fit;
// - the move is worth it: the instance time saved, estimated as the age
//   of its oldest allocation's run (for heavy-tailed run times, an
//   allocation that has run for a while is expected to run as long
//   again), exceeds the cost: move_cost on the source while its
//   allocations checkpoint, plus move_cost of each moved slot on its
//   target, in instance time;
// - the pool keeps at least min_instances connected agents after it.
// At most max_moves_per_pass allocations move per call. An agent that
// receives a move is not emptied in the same call. Fails by returning an
// empty plan (never throws on well-formed input).

#include "policy/scheduler_types.hpp"
#include "policy/time.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace det::policy {

struct consolidation_config {
  /// How long an agent must stay under-used before it is emptied.
  duration consolidate_after = std::chrono::minutes(10);
  /// Checkpoint plus restore time of one move, in the allocation's time.
  duration move_cost = std::chrono::seconds(120);
  /// Under-used: at most this share of the agent's slots in use.
  double max_used_fraction = 0.5;
  /// The size of the pool's instances (for the cost in instance time).
  int slots_per_instance = 1;
  /// The provisioner's min_instances: never empty the pool below it.
  int min_instances = 0;
  /// Allocations moved per call, at most.
  int max_moves_per_pass = 8;
};

/// A connected agent and since when it has been under-used (unset while it
/// is not, see is_underused).
struct consolidation_agent {
  agent_view agent;
  std::optional<timestamp> underused_since;
};

/// A running allocation and when its current run began.
struct consolidation_run {
  running_allocation run;
  timestamp started;
};

struct consolidation_input {
  std::vector<consolidation_agent> agents;
  std::vector<consolidation_run> running;
  /// Allocations waiting for slots that some agent set could hold.
  std::vector<pending_allocation> pending;
  timestamp now;
};

struct consolidation_move {
  std::string allocation_id;
  std::string from_agent;
  /// Where it restarts: free slots of one other agent.
  std::vector<agent_slots> to;
};

struct consolidation_plan {
  /// Allocations to ask to checkpoint and stop, and where they go.
  std::vector<consolidation_move> moves;
  /// Agents left empty by the moves: to drain (no new work) and terminate
  /// once their allocations have stopped.
  std::vector<std::string> emptied_agents;
};

/// Whether an agent with `total_slots` slots, `free_slots` of them free,
/// counts as under-used: some slot in use, at most max_used_fraction of
/// them. The caller keeps underused_since from this: set when it turns
/// true, cleared when it turns false.
[[nodiscard]] bool is_underused(int total_slots, int free_slots,
                                const consolidation_config& config);

[[nodiscard]] consolidation_plan
plan_consolidation(const consolidation_input& in,
                   const consolidation_config& config);

} // namespace det::policy
