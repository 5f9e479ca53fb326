// The master's scheduling passes: one pool actor per resource pool
// (actors/pool_actor.hpp), spawned on the pool's first pass, at most one
// pass in flight per pool; a pass's result becomes events through
// master_core::apply_schedule and the master's write-ahead step.

#include "actors/master_state.hpp"

#include "util/log.hpp"

#include <caf/typed_event_based_actor.hpp>

#include <string>

namespace det::detail {

/// Sends the pool's state to its actor for a scheduling pass, unless one
/// is in flight (then it runs once more when that one is back). The pass
/// works on a snapshot; its result is checked against the state of the
/// moment it comes back (master_core::apply_schedule).
void request_pass(master_self self, const std::string& pool) {
  auto& s = self->state;
  auto& slot = s.passes[pool];
  if (!slot.actor) {
    slot.actor =
        spawn_pool_actor(self->home_system(), pool, s.core->scheduler_of(pool));
    // A new actor has no view yet: its first delta is the whole pool.
    s.core->forget_pool_view(pool);
    self->link_to(slot.actor);
  }
  if (slot.in_flight) {
    slot.again = true;
    return;
  }
  pool_pass_request req;
  req.delta = s.core->pool_delta_of(pool);
  auto pending = s.core->pending_in_view(pool);
  if (pending == 0 && req.delta.size() == 0 && !req.delta.resync)
    return;
  // The incremental pass is checked against the full pass on every pass
  // of a small pool and every 64th of a large one.
  if (pending <= 1000 || slot.generation % 64 == 0)
    req.check = s.core->pool_view_snapshot(pool);
  req.pool = pool;
  req.generation = ++slot.generation;
  slot.in_flight = true;
  slot.again = false;
  self->request(slot.actor, caf::infinite, pass_atom::value, std::move(req))
      .then(
          [self](pool_pass_result& r) {
            auto& st = self->state;
            auto& sl = st.passes[r.pool];
            sl.in_flight = false;
            if (r.mismatches > 0)
              log::warn() << "pool " << r.pool
                          << ": the incremental scheduling pass differed "
                             "from the full pass; the full pass's result "
                             "was used (mismatches: "
                          << r.mismatches << ": " << r.mismatch_kinds << ")";
            auto d =
                st.core->apply_schedule(r.pool, r.result, st.opts.now_us());
            persist(self, std::move(d), [](const decision&) {});
            if (sl.again)
              request_pass(self, r.pool);
          },
          [self](caf::error& err) { self->quit(std::move(err)); });
}

} // namespace det::detail
