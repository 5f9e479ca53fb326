#pragma once

// Reading the log in two stages on two threads: a producer thread receives
// and parses rows, the caller's thread visits them (decode and apply), so
// the two overlap. Rows travel in chunks through a small bounded queue.
// Used by pg_event_store::read; knows nothing of PostgreSQL.

#include "store/event_store.hpp"

#include <functional>

namespace det {

/// Fills `out` with the next event; sets `done` (leaving `out` unused) at
/// the end. Runs on the producer thread. May throw; the exception is
/// rethrown on the caller's thread.
using event_producer =
    std::function<caf::error(recorded_event& out, bool& done)>;

/// Runs `produce` until done, visiting every event in order. When the
/// visitor fails, `on_stop` runs on the caller's thread (to cancel the
/// producer's source) and the producer is stopped at its next chunk. Returns
/// the visitor's error, else the producer's.
[[nodiscard]] caf::error pipelined_read(const event_producer& produce,
                                        const event_visitor& visit,
                                        const std::function<void()>& on_stop);

} // namespace det
