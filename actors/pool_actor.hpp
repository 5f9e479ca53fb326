#pragma once

// The actor of one resource pool: it holds the pool's scheduler and runs its
// scheduling passes off the master's thread. The master sends a snapshot of
// the pool (policy::pool_snapshot, built from its state) tagged with a
// generation; the pool actor runs policy::schedule_pool and answers the
// result with the same generation. The master turns the result into events
// through master_core::apply_schedule, which checks every placement against
// the state as it is then (the state may have moved on while the pass ran),
// and appends them write-ahead like any other decision.
//
// One pass per pool is in flight at a time; the master coalesces the
// requests that arrive meanwhile into one more pass.

#include "policy/scheduler_types.hpp"

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace det {

using pass_atom = caf::atom_constant<caf::atom("pass")>;

struct pool_pass_request {
  std::string pool;
  uint64_t generation = 0;
  policy::pool_snapshot snapshot;
};

struct pool_pass_result {
  std::string pool;
  uint64_t generation = 0;
  policy::schedule_result result;
  /// Wall time the pass took, for the master's metrics.
  std::chrono::microseconds took{0};
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
