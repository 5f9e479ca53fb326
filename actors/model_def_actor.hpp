#pragma once

// The owner of the model_def_store: a detached actor (its own thread),
// because the PostgreSQL store and `tar` block.
//   (put_atom, experiment_id, files JSON text) -> ok: builds the .tar.gz of
//     the v1File list and stores it; fails like make_model_archive or the
//     store.
//   (get_atom, experiment_id) -> base64 .tar.gz text; errc::not_found.

#include "store/model_def_store.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>

#include <memory>

namespace det {

using put_atom = caf::atom_constant<caf::atom("put")>;
using get_atom = caf::atom_constant<caf::atom("get")>;

caf::actor spawn_model_def_actor(caf::actor_system& sys,
                                 std::unique_ptr<model_def_store> store);

} // namespace det
