#pragma once

// A realistic, valid event history for benchmarks: one pool, agents of 4
// slots, one experiment whose trials hold a slot each and report training
// metrics, with a validation report and a checkpoint every tenth step.
// Every event applies to the state in order, so replays of it measure the
// real decode + apply path.

#include "messages/events.hpp"

#include <cstdint>
#include <functional>

namespace det::bench {

/// Calls `emit` for `n` events of the history above, in order.
void make_history(int64_t n, int64_t trials,
                  const std::function<void(const domain_event&)>& emit);

} // namespace det::bench
