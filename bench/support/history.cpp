#include "bench/support/history.hpp"

namespace det::bench {

void make_history(int64_t n, int64_t trials,
                  const std::function<void(const domain_event&)>& emit) {
  int64_t count = 0;
  auto put = [&](const domain_event& ev) {
    if (count++ < n)
      emit(ev);
  };
  int64_t t0 = 1800000000000000;
  pool_configured pool;
  pool.pool = "default";
  put(pool);
  auto agents = (trials + 3) / 4;
  for (int64_t a = 0; a < agents; ++a) {
    agent_connected ac;
    ac.agent_id = "agent-" + std::to_string(a);
    ac.pool = "default";
    ac.slots = 4;
    ac.at_us = t0;
    put(ac);
  }
  experiment_submitted sub;
  sub.experiment_id = 1;
  sub.pool = "default";
  sub.owner = "determined";
  sub.config = {{"name", "bench"},
                {"entrypoint", "model_def:Trial"},
                {"searcher",
                 {{"name", "random"},
                  {"metric", "validation_loss"},
                  {"max_trials", trials}}}};
  sub.at_us = t0;
  put(sub);
  for (int64_t t = 1; t <= trials; ++t) {
    trial_created tc;
    tc.trial_id = t;
    tc.experiment_id = 1;
    tc.hparams = {{"lr", 0.001 * static_cast<double>(t)}, {"layers", 4}};
    tc.request_id = "r" + std::to_string(t);
    tc.at_us = t0;
    put(tc);
    trial_placed tp;
    tp.trial_id = t;
    tp.allocation_id = std::to_string(t) + ".1";
    tp.assignments = {{"agent-" + std::to_string((t - 1) / 4), {(t - 1) % 4}}};
    tp.at_us = t0;
    put(tp);
    trial_running tr;
    tr.trial_id = t;
    tr.allocation_id = tp.allocation_id;
    tr.at_us = t0;
    put(tr);
  }
  int64_t validations = 0;
  for (int64_t step = 1; count < n; ++step) {
    if (step % 10 == 1 && validations > 0) {
      // The searcher took the last round of validations (as the
      // experiment's actor does, one step for the inputs queued together).
      experiment_searcher_updated up;
      up.experiment_id = 1;
      up.searcher_state = {{"round", step / 10}};
      up.progress = 0.5;
      up.inputs_through = validations;
      put(up);
    }
    for (int64_t t = 1; t <= trials && count < n; ++t) {
      auto alloc = std::to_string(t) + ".1";
      auto at = t0 + step * 1000000;
      trial_metrics_reported m;
      m.trial_id = t;
      m.allocation_id = alloc;
      m.kind = "training";
      m.steps_completed = step * 100;
      m.metrics = {{"loss", 1.0 / static_cast<double>(step + t)},
                   {"accuracy", 0.5}};
      m.at_us = at;
      put(m);
      if (step % 10 == 0) {
        m.kind = "validation";
        m.metrics = {{"validation_loss", 1.0 / static_cast<double>(step)}};
        put(m);
        ++validations;
        trial_checkpointed c;
        c.trial_id = t;
        c.allocation_id = alloc;
        c.uuid = "ckpt-" + std::to_string(t) + "-" + std::to_string(step);
        c.steps_completed = step * 100;
        c.metadata = {{"framework", "torch-2.3"}, {"format", "pickle"}};
        c.at_us = at;
        put(c);
      }
    }
  }
}

} // namespace det::bench
