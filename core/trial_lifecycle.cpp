#include "core/trial_lifecycle.hpp"

#include "state/cluster_state.hpp"
#include "state/queries.hpp"

namespace det {

trial_step after_exit(const trial_facts& f) {
  trial_step step;
  step.trial_id = f.trial_id;
  step.runs = f.runs;
  if (f.restarts > f.max_restarts) {
    step.verdict = trial_verdict::error;
    step.reason = "trial failed " + std::to_string(f.restarts)
                  + " times (max_restarts " + std::to_string(f.max_restarts)
                  + "); last exit code " + std::to_string(f.last_exit_code);
  } else if (f.stopping || f.closed) {
    step.verdict = trial_verdict::cancel;
    step.reason = f.closed ? "searcher closed" : "experiment stopping";
  } else {
    step.verdict = trial_verdict::restart;
  }
  return step;
}

trial_facts facts_of(const state::cluster_state& s, const state::trial_info& t,
                     bool closed) {
  const auto& e = s.experiments.at(t.experiment_id);
  trial_facts f;
  f.trial_id = t.id;
  f.runs = t.runs;
  f.restarts = t.restarts;
  f.max_restarts = e.max_restarts;
  f.last_exit_code = t.last_exit_code;
  f.stopping = state::is_stopping(e.status) || state::is_terminal(e.status);
  f.closed = closed;
  return f;
}

} // namespace det
