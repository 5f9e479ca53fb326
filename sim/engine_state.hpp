#pragma once

// The simulation's state, shared by the event loop (sim/engine.cpp) and
// the fleet rules (sim/fleet_rules.cpp). Internal to det_sim; times are
// virtual milliseconds from the start of the trace.

#include "sim/engine.hpp"

#include "policy/consolidation.hpp"
#include "policy/rng.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace det::sim::detail {

struct sim_instance {
  std::string id;
  int64_t launched_ms = 0;
  bool fails_boot = false;
  bool booted = false;    ///< its agent is up (connected once the master is)
  bool connected = false; ///< the master knows its agent
  bool gone = false;
  int64_t ended_ms = 0;
  std::vector<int> free; ///< free slot indices while connected
  int64_t idle_since_ms = -1;
  /// A job ended here while the master was down: its agent keeps the exit
  /// until the master acknowledges it, and does not stop itself meanwhile.
  bool holds_exit = false;
  /// Idle since then with the master down, or not yet reaped after it came
  /// back: the instance-hours an outage leaks.
  int64_t leak_since_ms = -1;
  /// Under-used (policy::is_underused) since then; -1 while it is not.
  int64_t underused_since_ms = -1;
  /// Emptied by consolidation: takes no work and is terminated once its
  /// moved jobs have checkpointed.
  bool draining = false;
};

enum class job_phase { future, waiting, running, done, never };

struct sim_job {
  std::string id;
  job_phase phase = job_phase::future;
  int64_t remaining_ms = 0;
  int64_t started_ms = -1;
  int64_t first_start_ms = -1;
  uint64_t generation = 0; ///< invalidates finish events of earlier runs
  int moves = 0;           ///< times consolidation moved it
  std::vector<policy::agent_slots> resources;
};

/// What a fleet rule changes: launch count and instances to terminate.
struct fleet_change {
  int launch = 0;
  std::vector<size_t> terminate;
};

struct sim_state {
  const std::vector<job>* jobs = nullptr;
  const sim_config* config = nullptr;
  const policy_spec* policy = nullptr;
  std::vector<sim_job> state;
  /// Every instance ever launched; its index is its id's number.
  std::vector<sim_instance> instances;
  /// Indices of the instances not gone, ascending: what every pass walks,
  /// so a pass costs the live fleet, not every instance ever launched.
  std::vector<size_t> live;
  std::vector<size_t> waiting; ///< indices of waiting jobs, submit order
  int64_t now_ms = 0;
  int64_t last_launch_ms = -1;
  policy::rng rng{1};
  run_result result;

  [[nodiscard]] int alive() const;
  [[nodiscard]] int starting() const;
};

/// The pool as the scheduler sees it: connected agents, waiting jobs (in
/// submit order), running jobs (`running`); jobs of a group share an
/// "experiment" (the fair-share unit), others are their own. Sets
/// `free_total` to the free slots of the agents. (sim/pool_view.cpp)
[[nodiscard]] policy::pool_snapshot
pool_snapshot_of(const sim_state& s, const std::set<size_t>& running,
                 size_t& free_total);

/// The consolidation settings of `s`'s policy and config.
[[nodiscard]] policy::consolidation_config
consolidation_config_of(const sim_state& s);

/// Which running jobs to move, and where, so that under-used instances
/// empty (policy::plan_consolidation over the pool as it is now; nothing
/// while jobs wait). (sim/pool_view.cpp)
[[nodiscard]] policy::consolidation_plan
consolidation_of(const sim_state& s, const std::set<size_t>& running);

/// Fills s.result's totals at the end of a run (every instance has its
/// end): end time, instance-hours billed (60 s minimum each), cost, waits
/// and jobs never started. (sim/run_totals.cpp)
void total_up(sim_state& s);

/// The decision of `s.policy`'s rule at s.now_ms (the master is up).
[[nodiscard]] fleet_change decide_fleet(sim_state& s);

/// How often the rule's loop looks (0 = on every change).
[[nodiscard]] int64_t decision_period_ms(fleet_rule r);

/// Instances of `g` GPUs that pending gangs need beyond `room` (free GPUs
/// of nodes already there: starting, or empty for Karpenter): first-fit
/// decreasing, a gang of an instance or more takes whole empty nodes, then
/// new ones. Sets `used[b]` when the demand took room `b`. Shared by the
/// baselines.
[[nodiscard]] int instances_needed(std::vector<int> pending,
                                   std::vector<int> room, int g,
                                   std::vector<bool>* used = nullptr);

} // namespace det::sim::detail
