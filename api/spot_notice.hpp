#pragma once

// What the master does when an agent reports a spot interruption notice
// (frame spot_interruption, docs/agent_protocol.md): the master decides the
// drain as one command (master_core::spot_interruption): agent_disabled
// (drain: nothing new is placed there, the running trials are not killed)
// and trial_preemption_requested (reason spot_interruption) for every trial
// running there, in one append. The trials see the
// preemption signal, checkpoint at once and exit; they are pending again
// without counting a restart, and the pool's scale decision, which does
// not count a disabled agent as capacity, launches a replacement.

#include "actors/master_actor.hpp"

#include <caf/actor_system.hpp>

#include <string>

namespace det::api {

void on_spot_interruption(caf::actor_system& sys, master_actor master,
                          std::string agent_id);

} // namespace det::api
