#pragma once

// det-inspect's questions to the event log itself, through the event_store
// interface: a filtered range of events, and the state as it was at a
// position (newest snapshot at or before it, then the events up to it,
// through state/ like recovery). Used by the master's /api/v1/inspect
// routes (on their own reader thread and connection) and by det-inspect
// --db. Blocking: never call on an actor thread.

#include "state/cluster_state.hpp"
#include "store/event_store.hpp"

#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace det::inspection {

struct event_filter {
  /// First position to show; unset: the last `limit` matching events.
  std::optional<int64_t> from;
  /// Last position to show; unset: the end of the log.
  std::optional<int64_t> to;
  std::optional<std::string> stream;
  std::optional<std::string> type;
  /// At most this many events (1..100000).
  int64_t limit = 100;
};

/// The event as a JSON row: position, stream, stream_version, type,
/// schema_version, recorded_at, payload (parsed; the raw text if it does
/// not parse).
nlohmann::json event_json(const recorded_event& rec);

/// {"events": [...], "last_position": N, "truncated": bool}. Fails with
/// errc::invalid_argument naming the field (from, to, limit) when the
/// range is impossible.
caf::expected<nlohmann::json> query_events(event_store& log,
                                           const event_filter& f);

/// The state after event `at` (0: the empty state). Fails with
/// errc::invalid_argument when `at` is negative or past the end of the log,
/// or when more than `max_events` would have to be replayed after the
/// nearest snapshot.
caf::expected<state::cluster_state> state_at(event_store& log, int64_t at,
                                             int64_t max_events = 5'000'000);

} // namespace det::inspection
