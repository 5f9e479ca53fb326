#pragma once

// Which pools' provisioners should decide again after some events became
// durable: the pools whose pending demand or capacity the events may have
// changed. The master calls it after each durable batch and wakes those
// provisioners at once, so a trial that cannot be placed reaches the
// provisioner's scale decision without waiting for its tick (the tick
// stays as the safety net for what only time changes: idle and starting
// timeouts, the orphan grace, backoff).
//
// A new experiment wakes nobody until its searcher creates its trials.
// Metrics, checkpoints, running reports, users and sessions wake nobody:
// a cluster that only trains decides nothing new, and its provisioners
// make no extra cloud calls. Pure; `s` is the state with the events
// applied.

#include "messages/events.hpp"
#include "state/cluster_state.hpp"

#include <set>
#include <string>
#include <vector>

namespace det {

/// The pools to wake for `events`; every pool of `s` when an event names
/// something the state no longer knows (better one decision too many than
/// a trial left waiting for the tick).
std::set<std::string> pools_to_wake(const state::cluster_state& s,
                                    const std::vector<domain_event>& events);

} // namespace det
