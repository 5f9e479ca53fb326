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
  } else if (f.stopping) {
    step.verdict = trial_verdict::cancel;
    step.reason = "experiment stopping";
  } else if (!f.retries_canceled_by.empty()) {
    step.verdict = trial_verdict::error;
    step.reason = "trial failed and matched logs to a don't retry policy '"
                  + f.retries_canceled_by + "' (exit code "
                  + std::to_string(f.last_exit_code) + "): not restarted";
  } else {
    // A trial the searcher closed is restarted too: its run ended without
    // the clean exit that completes it (its agent was lost after the last
    // validation, or it failed afterwards). A run resumed from its latest
    // checkpoint, at its target, exits at once and completes it; canceling
    // it instead ended experiments whose every trial had trained to its
    // target in ERROR ("no trial completed").
    step.verdict = trial_verdict::restart;
    if (f.closed)
      step.reason = "closed by the searcher, its exit not seen";
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
  if (t.last_exit_reason == "failed")
    f.retries_canceled_by = t.retries_canceled_by;
  return f;
}

} // namespace det
