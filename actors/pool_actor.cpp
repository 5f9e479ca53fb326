#include "actors/pool_actor.hpp"

#include "policy/pool_scheduler.hpp"

#include <memory>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

namespace det {

namespace {

struct pool_state {
  static inline const char* name = "pool";
  std::string pool;
  policy::scheduler_config config;
  std::unique_ptr<policy::incremental_scheduler> scheduler;
};

/// Runs one pass: the delta applied, the incremental pass, and when the
/// request carries the whole view, the check against the full pass.
pool_pass_result run_pass(pool_state& st, pool_pass_request& req) {
  pool_pass_result out;
  auto& sched = *st.scheduler;
  sched.apply(req.delta);
  if (req.check && !policy::same_view(sched.snapshot(), *req.check)) {
    ++out.mismatches;
    out.mismatch_kinds =
        "view (" + policy::view_difference(sched.snapshot(), *req.check) + ")";
    sched.sync(*req.check);
  }
  out.checked = req.check.has_value();
  if (sched.pending_count() == 0)
    return out;
  out.result = sched.pass();
  if (req.check) {
    auto full = policy::schedule_pool(sched.snapshot(), st.config);
    if (!policy::same_decisions(full, out.result)) {
      ++out.mismatches;
      out.mismatch_kinds +=
          out.mismatch_kinds.empty() ? "decisions" : ", decisions";
      out.result = std::move(full);
    }
  }
  return out;
}

pool_actor::behavior_type
pool_behavior(pool_actor::stateful_pointer<pool_state> self, std::string pool,
              policy::scheduler_config config) {
  self->state.pool = std::move(pool);
  self->state.config = config;
  self->state.scheduler =
      std::make_unique<policy::incremental_scheduler>(config);
  return {
      [self](pass_atom, pool_pass_request& req) {
        auto t0 = std::chrono::steady_clock::now();
        auto out = run_pass(self->state, req);
        out.pool = std::move(req.pool);
        out.generation = req.generation;
        out.took = std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::steady_clock::now() - t0);
        return out;
      },
  };
}

} // namespace

pool_actor spawn_pool_actor(caf::actor_system& sys, std::string pool,
                            policy::scheduler_config config) {
  return sys.spawn(pool_behavior, std::move(pool), config);
}

} // namespace det
