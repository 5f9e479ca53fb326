#pragma once

// The simulation: a trace's jobs go through the master's real decision
// code in virtual time (policy::schedule_pool for placement and preemption,
// policy::decide_scale for the fleet when the rule is `ours`), with
// instances that boot after a drawn delay, spot reclaims, boot failures and
// master outages. Single-threaded, no clock, no I/O: the same jobs, config,
// policy and seed give the same result, bit for bit.

#include "sim/sim_config.hpp"
#include "sim/trace.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace det::sim {

struct series_point {
  int64_t t_s = 0;
  int instances = 0; ///< launched and not yet terminated (billed)
  int busy_gpus = 0;
  int queued = 0; ///< submitted jobs neither running nor finished
};

struct run_result {
  std::string policy;
  double instance_hours = 0;
  double cost = 0;
  /// Per job: first start minus submit in seconds; -1 = never started.
  std::vector<int64_t> waits;
  int never_started = 0;
  double gpu_hours_lost = 0; ///< work redone after reclaims
  /// GPU-hours jobs held slots: the trace's work, plus work lost and
  /// the moves' cost, for every job that ended.
  double busy_gpu_hours = 0;
  /// Instance-hours of instances idle while the master was down, counted
  /// until they are reaped or given work after it returns.
  double outage_idle_instance_hours = 0;
  int restarts = 0; ///< reclaims and preemptions of running jobs
  int moves = 0;    ///< jobs moved by consolidation (not in restarts)
  int consolidated_instances = 0; ///< instances emptied by moves
  double move_gpu_hours = 0;      ///< GPU time the moves cost (move_cost_s)
  int jobs_moved = 0;             ///< jobs moved at least once
  int most_moves_of_a_job = 0;    ///< the most times one job was moved
  int launched = 0;
  int boot_failures = 0;
  int reclaims = 0;
  int self_shutdowns = 0; ///< instances their idle agent stopped (outages)
  /// Self-stops that wrote their agent's unrecorded exits into the
  /// instance's tags first (ours+self-stop-tag-exits).
  int exits_tagged = 0;
  int peak_instances = 0;
  /// Instances still running when nothing is left to happen (min_instances
  /// or leaks); all are known to the simulated master.
  int instances_at_end = 0;
  int64_t end_s = 0; ///< time of the last event
  /// The run was cut: a year past the zero-wait end of the trace, 100,000
  /// rounds of events at one instant, or jobs waiting while no job started
  /// for the first time or ended for 30 days plus the longest job (a
  /// policy that never settles).
  bool stalled = false;
  long long scheduler_passes = 0;
  long long scale_decisions = 0;
  std::vector<series_point> series;
};

[[nodiscard]] run_result simulate(const std::vector<job>& jobs,
                                  const sim_config& config,
                                  const policy_spec& policy);

} // namespace det::sim
