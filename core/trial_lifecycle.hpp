#pragma once

// What happens to a trial whose allocation ended without ending the trial
// (status `exited`: it failed, was preempted or paused, or lost its agent),
// as plain code. The trial's actor (actors/trial_actor) decides it from the
// facts the master sends it; master_core decides it the same way when it
// runs trials inline.

#include "state/cluster_state.hpp"

#include <cstdint>
#include <string>

namespace det {

/// What the decision needs to know about an exited trial.
struct trial_facts {
  int64_t trial_id = 0;
  /// Allocations made so far: a step for an older run is stale.
  int64_t runs = 0;
  int32_t restarts = 0;
  int32_t max_restarts = 0;
  int32_t last_exit_code = 0;
  /// The experiment is stopping or has ended.
  bool stopping = false;
  /// The searcher closed the trial. It is restarted all the same (a run
  /// from its latest checkpoint confirms its end), never canceled for it.
  bool closed = false;
  /// Its last run failed after its logs matched this cancel_retries log
  /// policy (name, or pattern): not restarted. "" otherwise.
  std::string retries_canceled_by;
};

enum class trial_verdict { restart, error, cancel };

/// The trial's next step: back to pending (resuming from its latest
/// checkpoint), errored, or canceled.
struct trial_step {
  int64_t trial_id = 0;
  int64_t runs = 0;
  trial_verdict verdict = trial_verdict::restart;
  std::string reason;
};

/// Errored once failures exceed max_restarts (only failures of the trial's
/// own code count) or when it failed after a cancel_retries log policy
/// matched; canceled when its experiment is stopping or ended; else
/// restarted.
trial_step after_exit(const trial_facts& f);

/// The facts of `t` in `s`; `closed` from the experiment's searcher ledger.
trial_facts facts_of(const state::cluster_state& s, const state::trial_info& t,
                     bool closed);

} // namespace det
