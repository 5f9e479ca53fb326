#pragma once
#include "messages/priority.hpp"

// The plain data the pool scheduler reads and writes. The resource_pool actor
// translates its state/ view of a pool into these structs once per scheduling
// pass and translates the result back into events (trial_placed,
// allocation_preemption_requested, ...). Nothing here refers to state/.

#include <cstdint>
#include <string>
#include <vector>

namespace det::policy {

/// One connected agent as the scheduler sees it. `free_slots` are slot
/// indices in [0, total_slots), each at most once. A disabled or draining
/// agent receives no new work but may still hold running allocations.
struct agent_view {
  std::string id;
  int total_slots = 0;
  std::vector<int> free_slots;
  bool enabled = true;
  bool draining = false;
};

/// The slots one allocation holds (or is given) on one agent.
struct agent_slots {
  std::string agent_id;
  std::vector<int> slots;

  friend bool operator==(const agent_slots& a, const agent_slots& b) {
    return a.agent_id == b.agent_id && a.slots == b.slots;
  }
};

/// An allocation waiting for slots. `priority` runs from 1 (most urgent) to
/// 99; `order` is the queue position (submission order), smaller first.
/// `weight` is its experiment's fair-share weight.
struct pending_allocation {
  std::string id;
  std::string experiment_id;
  int slots = 1;
  int priority = default_priority;
  uint64_t order = 0;
  double weight = 1.0;
  /// Agents it must not be placed on (its trial's exclude_node log
  /// policies matched there).
  std::vector<std::string> avoid_agents;
};

/// An allocation holding slots. `preempting` is true when it was already
/// asked to checkpoint and stop: its slots count as soon free, and it is not
/// asked again.
struct running_allocation {
  std::string id;
  std::string experiment_id;
  int priority = default_priority;
  uint64_t order = 0;
  double weight = 1.0;
  bool preemptible = true;
  bool preempting = false;
  std::vector<agent_slots> resources;
};

/// What the pool could ever offer, to tell "wait" from "never".
/// `max_slots`: max_instances * slots_per_instance for a provisioned pool,
/// the sum over connected agents for a static one. `slots_per_instance`: the
/// size of every agent the provisioner launches, 0 for a static pool (then
/// the connected agents' sizes decide which gangs can ever be formed).
struct pool_capacity {
  int max_slots = 0;
  int slots_per_instance = 0;
};

enum class scheduling_policy { priority, fair_share };

/// best packs (the agent left with the fewest free slots wins), worst
/// spreads (the agent with the most free slots wins).
enum class fitting_policy { best, worst };

struct scheduler_config {
  scheduling_policy policy = scheduling_policy::priority;
  fitting_policy fitting = fitting_policy::best;
  /// Priority policy only: ask lower-priority running allocations to stop
  /// when a more urgent one cannot fit. fair_share always may preempt.
  bool preemption = false;
  /// Upper bound on running allocations examined (released and re-fitted
  /// in the simulation) while looking for victims in one pass. The most
  /// urgent waiting allocations are served first; the rest try again next
  /// pass. Keeps a pass over a huge, busy pool within its tick.
  long long preemption_budget = 100000;
};

/// Everything one pass reads.
struct pool_snapshot {
  std::vector<agent_view> agents;
  std::vector<pending_allocation> pending;
  std::vector<running_allocation> running;
  pool_capacity capacity;
};

struct placement {
  std::string allocation_id;
  std::vector<agent_slots> resources;
};

struct never_fits {
  std::string allocation_id;
  std::string reason;
};

/// Everything one pass decides. Pending allocations in none of the lists
/// wait for the next pass.
struct schedule_result {
  std::vector<placement> placements;
  /// Running allocations to ask to checkpoint and stop.
  std::vector<std::string> preemptions;
  /// Pending allocations that no agent set of this pool can ever hold.
  std::vector<never_fits> unschedulable;
};

} // namespace det::policy
