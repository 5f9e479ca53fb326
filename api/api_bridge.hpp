#pragma once

// The API bridge: how HTTP handlers (server I/O threads, which must never
// block) talk to the actors. A handler posts a job; the job runs on the
// bridge actor, where it may request() the master or another actor (model
// definitions, experiment creation) and answer through the request's
// responder from the reply handler (responders may be called from any
// thread). Jobs run one at a time on the bridge; they keep no state there:
// what must wait for a multi-step flow waits in the actor that runs it.

#include "http/responder.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>

#include <functional>

namespace det::api {

struct bridge_job {
  std::function<void(caf::event_based_actor* self)> run;
};

caf::actor spawn_api_bridge(caf::actor_system& sys);

/// Queues `fn` on the bridge. Callable from any thread.
void post(const caf::actor& bridge,
          std::function<void(caf::event_based_actor* self)> fn);

} // namespace det::api

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(det::api::bridge_job)
