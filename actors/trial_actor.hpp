#pragma once

// The actor of one trial: its lifecycle past the scheduler. It carries out
// the orders for its allocations (start, checkpoint-and-stop, kill) on the
// agents' actors, once the events behind them are durable; and when an
// allocation ends without ending the trial (status `exited`), it decides
// what follows (actors/trial_lifecycle: restart from the latest checkpoint,
// error after max_restarts, or cancel) and proposes it to the master, which
// checks it against the state (master_core::apply_trial_step) and appends it.
// A trial that was `exited` when the master stopped gets the decision from
// its new actor after replay. The master spawns a trial's actor the first
// time it has something for it and stops it when the trial ends.

#include "core/master_core.hpp"
#include "core/trial_lifecycle.hpp"
#include "messages/atoms.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

namespace det {

using settle_atom = caf::atom_constant<caf::atom("settle")>;

} // namespace det

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::start_order)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::preempt_order)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::kill_order)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::task_start_order)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::trial_facts)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::trial_step)

namespace det {

using trial_actor = caf::typed_actor<
    // The trial is exited: decide and propose its trial_step (a command).
    caf::reacts_to<settle_atom, trial_facts>,
    // Orders, with the agent's actor to carry them to.
    caf::reacts_to<start_atom, start_order, caf::actor>,
    caf::reacts_to<preempt_atom, preempt_order, caf::actor>,
    caf::reacts_to<kill_atom, kill_order, caf::actor>>;

/// The actor of trial `trial_id`; it proposes its steps to `master`.
trial_actor spawn_trial_actor(caf::actor_system& sys, int64_t trial_id,
                              caf::actor master);

} // namespace det
