#pragma once

// The owner of the model_def_store: a detached actor (its own thread),
// because the PostgreSQL store and `tar` block.
//   (put_atom, experiment_id, model_files) -> ok: builds the .tar.gz of
//     the v1File list and stores it; fails like make_model_archive or the
//     store. The list is handed over as the request parsed it (a model
//     definition reaches 95 MiB: never printed and parsed again).
//   (get_atom, experiment_id) -> base64 .tar.gz text; errc::not_found.
//   (put_atom, task_id, model_files), (get_atom, task_id): the same for a
//     task's context directory; (put_atom, task_id, base64 .tar.gz text)
//     stores an archive as it is (a forked task's copy of its parent's).

#include "store/model_def_store.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>

#include <nlohmann/json.hpp>

#include <memory>

namespace det {

/// A request's modelDefinition list (v1File objects), shared, never
/// changed after it is sent.
struct model_files {
  std::shared_ptr<const nlohmann::json> list;
};

using put_atom = caf::atom_constant<caf::atom("put")>;
using get_atom = caf::atom_constant<caf::atom("get")>;

caf::actor spawn_model_def_actor(caf::actor_system& sys,
                                 std::unique_ptr<model_def_store> store);

} // namespace det

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::model_files)
