#pragma once

// The actor of one resource pool: it holds the pool's scheduler and runs its
// scheduling passes off the master's thread. The scheduler is incremental
// (policy::incremental_scheduler): the master sends what changed in the
// pool since its last request (policy::pool_delta, core/pool_views.hpp)
// tagged with a generation; the pool actor applies it, runs a pass and
// answers the result with the same generation. Now and then (every pass
// of a small pool, every 64th of a large one) the request carries the
// whole view as well: the actor checks its view and its pass against it
// and the full pass (policy::schedule_pool), and on any difference takes
// the full pass's result and the whole view, and reports the mismatch. The
// master turns the result into events through master_core::apply_schedule,
// which checks every placement against the state as it is then (the state may
// have moved on while the pass ran), and appends them write-ahead like any
// other decision.
//
// One pass per pool is in flight at a time; the master coalesces the
// requests that arrive meanwhile into one more pass.

#include "policy/incremental_scheduler.hpp"
#include "policy/scheduler_types.hpp"

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace det {

using pass_atom = caf::atom_constant<caf::atom("pass")>;

struct pool_pass_request {
  std::string pool;
  uint64_t generation = 0;
  policy::pool_delta delta;
  /// The whole view, to check the incremental pass against (see above).
  std::optional<policy::pool_snapshot> check;
};

struct pool_pass_result {
  std::string pool;
  uint64_t generation = 0;
  policy::schedule_result result;
  /// Wall time the pass took, for the master's metrics.
  std::chrono::microseconds took{0};
  /// The pass was checked against the full pass on the whole view.
  bool checked = false;
  /// What the check found different: 1 for the view, 1 for the result.
  int mismatches = 0;
  /// Which: "view" (the deltas' view was not the master's) and/or
  /// "decisions" (placements, preemptions or reasons differed).
  std::string mismatch_kinds;
};

} // namespace det

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::pool_pass_request)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::pool_pass_result)

namespace det {

using pool_actor = caf::typed_actor<
    caf::replies_to<pass_atom, pool_pass_request>::with<pool_pass_result>>;

/// A pool actor with `config` as its scheduler (priority or fair_share).
pool_actor spawn_pool_actor(caf::actor_system& sys, std::string pool,
                            policy::scheduler_config config);

} // namespace det
