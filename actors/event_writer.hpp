#pragma once

// The event-log writer: the one actor that appends. Other actors follow the
// write-ahead rule through it: request (append_atom, request), and only
// when the reply (the positions) arrives apply the events and act. The
// reply comes only after the events are durable; on errc::conflict nothing
// was written.
//
// Two modes, chosen at spawn: group_commit (production: a group_appender
// thread owns the store, and its acknowledgements come back to this actor
// as messages, so no actor thread waits on PostgreSQL) and synchronous
// (deterministic tests with a memory_event_store: the append runs inside
// the handler, so CAF's test coordinator sees every step).

#include "messages/atoms.hpp"
#include "messages/event.hpp"
#include "messages/inspect.hpp"
#include "store/event_store.hpp"

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

namespace det {

using event_writer_actor = caf::typed_actor<
    caf::replies_to<append_atom, append_request>::with<append_result>,
    caf::reacts_to<committed_atom, uint64_t, append_result>,
    caf::reacts_to<committed_atom, uint64_t, caf::error>,
    // Save a snapshot (state JSON text, the position it reflects, its schema
    // version) after the appends already queued, keeping the newest three.
    caf::reacts_to<snapshot_atom, std::string, int64_t, int32_t>>;

enum class writer_mode { group_commit, synchronous };

/// Spawns the writer over `store`, which must outlive it and which nothing
/// else may use while it runs.
event_writer_actor spawn_event_writer(caf::actor_system& sys,
                                      event_store& store, writer_mode mode);

} // namespace det
