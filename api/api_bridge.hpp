#pragma once

// The API bridge: how HTTP handlers (server I/O threads, which must never
// block) talk to the actors. A handler posts a job; the job runs on the
// bridge actor, where it may request() the master or the model-definition
// actor and answer through the request's responder from the reply handler
// (responders may be called from any thread). Jobs run one at a time on the
// bridge, so state they share (bridge_state) needs no lock, provided only
// jobs touch it.

#include "http/responder.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>

#include <functional>
#include <map>
#include <set>
#include <vector>

namespace det::api {

struct bridge_job {
  std::function<void(caf::event_based_actor* self)> run;
};

/// Touched only from bridge jobs.
struct bridge_state {
  /// Experiments whose model definition is being stored, and the
  /// GET model_def requests waiting for it.
  std::set<int64_t> storing;
  std::map<int64_t, std::vector<http::responder>> waiting;
};

caf::actor spawn_api_bridge(caf::actor_system& sys);

/// Queues `fn` on the bridge. Callable from any thread.
void post(const caf::actor& bridge,
          std::function<void(caf::event_based_actor* self)> fn);

} // namespace det::api

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::api::bridge_job)
