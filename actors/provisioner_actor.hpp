#pragma once

// The provisioner of one pool. It decides when the master wakes it (a
// change of the pool's demand or capacity became durable; wakes are
// coalesced and rate-limited by min_decision_gap / decision_burst) from the
// state alone, without calling the provider; and on every tick (the safety
// net for what only time changes) it lists the provider (asynchronously;
// the provider caches and bounds its cloud calls) and decides on that
// inventory. A decision asks the master for a provisioning plan
// (core/provisioning.hpp, computed on the master's state, reconciled with
// the inventory when there is one), then acts write-ahead through
// the master: reconciliation events first; instance_launch_requested before
// the provider launches, then instance_pending / spot_request_opened (or
// instance_launch_failed) when the launch answers; instance_terminate_
// requested before the provider terminates; spot_request_cancelled before
// a spot request is cancelled. Provider calls never run on this actor's
// thread: their results come back as messages. Launch failures back off
// per instance type (policy/backoff) and fall back to the provider's next
// type; tagged instances and spot requests the state does not know are
// terminated / cancelled after the provider's orphan grace.

#include "actors/master_actor.hpp"
#include "core/instance_provider.hpp"
#include "core/provisioning.hpp"

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace det {

/// Handles tick_atom (and re-arms it when tick_interval > 0) and wake_atom
/// (after sending the master watch_atom when wake_on_change).
caf::actor spawn_provisioner(caf::actor_system& sys, master_actor master,
                             std::shared_ptr<instance_provider> provider,
                             provisioner_options opts);

} // namespace det
