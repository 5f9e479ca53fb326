#pragma once

// What det-sim simulates: the fleet (instance size, bounds, price, boot
// time), the faults, and the fleet policy under test. Plain data; built from
// the master's own master.yaml by config_from_master (sim/master_yaml.hpp)
// and overridden from det-sim's command line.

#include "policy/scheduler_types.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace det::sim {

/// Which rule decides launches and terminations. `ours` is the master's
/// real policy::decide_scale; the others are baselines written from their
/// documented rules (docs/det-sim.md, "Baselines").
enum class fleet_rule { ours, determined, cluster_autoscaler, karpenter };

struct policy_spec {
  std::string name = "ours";
  fleet_rule rule = fleet_rule::ours;
  /// ours/determined: max_idle_agent_period; cluster_autoscaler:
  /// scale-down-unneeded-time; karpenter: consolidateAfter.
  int64_t idle_s = 180;
  /// Agents stop their own instance after this idle period while the
  /// master is unreachable (policy/idle_self_shutdown); 0 = they never do.
  int64_t self_shutdown_s = 0;
  /// An agent holding an exit the master has not recorded stops anyway
  /// (the exit is lost with the instance; det-agent does not do this).
  bool self_stop_drops_exits = false;
  /// The idle period of that rule while the master is unreachable when
  /// shorter (the pool's unreachable_idle_agent_period); 0 = the same.
  int64_t self_shutdown_unreachable_s = 0;
  /// Such an agent writes its exits into its instance's tags, then stops;
  /// the returning master reads them (messages/exit_tags.hpp).
  bool self_stop_tags_exits = false;
  /// Moves checkpointed jobs off instances under-used for
  /// consolidate_after_s so they can be terminated
  /// (policy/consolidation; ours only).
  bool consolidate = false;
  int64_t consolidate_after_s = 600;
};

/// The master down from start_s for length_s: no scheduling, no scale
/// decision; instances keep running (and billing), booted agents wait to
/// connect, jobs that end leave their slots idle until it returns.
struct outage {
  int64_t start_s = 0;
  int64_t length_s = 0;
};

struct sim_config {
  int gpus_per_instance = 8;
  int min_instances = 0;
  int max_instances = 1000000; ///< "uncapped"
  std::string instance_type;
  double price_per_hour = 0;
  bool spot = false;
  /// Boot time from launch to a usable agent: uniform in
  /// [boot_s - boot_jitter_s, boot_s + boot_jitter_s].
  double boot_s = 180;
  double boot_jitter_s = 0;
  /// Probability that a launched instance never brings an agent up.
  double boot_failure_rate = 0;
  /// Poisson rate of spot reclaims per instance-hour (0 = none).
  double reclaims_per_instance_hour = 0;
  std::vector<outage> outages;
  /// Extra outages at seeded uniform times within the trace's submissions.
  int random_outages = 0;
  int64_t random_outage_s = 1800;
  /// A job interrupted by a reclaim resumes from its last checkpoint,
  /// taken every checkpoint_s of its run; a preempted job checkpoints
  /// when asked and loses nothing.
  int64_t checkpoint_s = 1800;
  /// What one consolidation move costs: the job checkpoints on its old
  /// instance, which stays billed (draining) this long before it is
  /// terminated, and its restart on the new one takes this much longer.
  int64_t move_cost_s = 120;
  int64_t max_agent_starting_s = 1200;
  policy::scheduler_config scheduler;
  /// Points of the time series (fleet, busy GPUs, queue) over the run.
  int series_points = 400;
  uint64_t seed = 1;
};

} // namespace det::sim
