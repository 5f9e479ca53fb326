#pragma once

// The actor of one experiment: it holds the experiment's searcher
// (actors/experiment_searcher) and turns what happened to its trials into
// searcher steps, off the master's thread.
//
// The master hands it the experiment's searcher inbox (state::searcher_input,
// queued by state::apply) once the events that queued them are durable. The
// actor feeds the inputs it has not seen to its searcher and proposes the
// step to the master, which checks it against the state
// (master_core::apply_searcher_step), appends it and answers once it is
// durable. One step is in flight at a time; inputs that arrive meanwhile
// wait for the answer. A refused step (the actor's searcher no longer
// follows the log) makes the master send a reset: the actor rebuilds its
// searcher from the saved state and feeds the inbox again. A master that
// stopped between an input and its step replays the log, finds the input
// still queued, and the new actor feeds it again: the searcher is
// deterministic, so the result is the same.

#include "core/experiment_searcher.hpp"
#include "messages/atoms.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <vector>

namespace det {

using feed_atom = caf::atom_constant<caf::atom("feed")>;
using step_atom = caf::atom_constant<caf::atom("step")>;

/// What the master sends an experiment actor: its inbox as it is now, and
/// with `reset`, everything to rebuild the searcher from the state.
struct experiment_feed {
  int64_t experiment_id = 0;
  std::vector<state::searcher_input> inbox;
  bool reset = false;
  nlohmann::json config;
  uint64_t seed = 0;
  nlohmann::json saved;
  int64_t fed_through = 0;
};

/// A feed that rebuilds the searcher of `e` from the state.
experiment_feed reset_feed(const state::experiment_info& e, uint64_t base_seed);

} // namespace det

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::experiment_feed)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::searcher_step)

namespace det {

using experiment_actor =
    caf::typed_actor<caf::reacts_to<feed_atom, experiment_feed>>;

/// The actor of one experiment. It proposes steps to `master` with
/// (step_atom, searcher_step), answered by caf::ok_atom once durable.
/// Send it a reset feed first.
experiment_actor spawn_experiment_actor(caf::actor_system& sys,
                                        caf::actor master);

} // namespace det
