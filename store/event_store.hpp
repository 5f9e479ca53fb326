#pragma once

// Append-only log of domain events, one stream per aggregate ("trial/42",
// "instance/i-0abc"), with a global position that is contiguous from 1.
// Implementations: pg_event_store (PostgreSQL, the product) and
// memory_event_store (unit tests of the code above the store). Not
// thread-safe: one owner at a time (the group_appender's thread, or a
// reader such as det-replay).

#include "messages/event.hpp"
#include "messages/events.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace det {

/// Which events read() visits: positions in (after, up_to], optionally of
/// one stream only.
struct read_options {
  int64_t after = 0;
  std::optional<int64_t> up_to;
  std::optional<std::string> stream;
  /// Parse each payload into recorded_event::parsed before the visitor
  /// sees it (the PostgreSQL store does it on its reader thread). Off in
  /// replay: on 2 cores, building JSON trees on one thread and freeing them
  /// on another measured slower (3.9 s vs 3.1-3.2 s for 1M events).
  bool parse_payloads = false;
};

/// A serialized state and the position of the last event it reflects.
/// How many snapshots a writer keeps (the newest).
constexpr size_t snapshots_kept = 3;

struct snapshot {
  int64_t position = 0;
  int32_t schema_version = 1;
  /// The state as text (JSON).
  std::string state;
  int64_t created_at_us = 0;
};

/// Called once per event, in position order. Returning an error stops the
/// read, and read() returns that error.
using event_visitor = std::function<caf::error(recorded_event&&)>;

/// Called once per event, in position order, with the event decoded (or
/// why it cannot be: decode()'s error). Returning an error stops the read.
using decoded_visitor =
    std::function<caf::error(recorded_event&&, caf::expected<domain_event>&&)>;

/// Some top-level fields of the payloads of one stream's events of one
/// type: a projection the store computes itself (PostgreSQL's jsonb
/// operators), so a reader of one field of 100,000 events is not handed
/// and made to parse 100,000 whole payloads.
struct field_query {
  std::string stream;
  std::string type;
  std::vector<std::string> fields;
};

/// Called once per matching event, in position order, with each asked
/// field as JSON text ("" when the payload lacks it). Returning an error
/// stops the read.
using fields_visitor =
    std::function<caf::error(int64_t position, std::vector<std::string>&)>;

class event_store {
public:
  virtual ~event_store() = default;

  /// Appends each request atomically and independently, in order, and
  /// returns one result per request. A request whose expectations fail gets
  /// errc::conflict and writes nothing; the others are unaffected. When the
  /// store itself fails, every request not yet durable gets
  /// errc::store_unavailable. A result is returned only once its events are
  /// durable.
  [[nodiscard]] virtual std::vector<caf::expected<append_result>>
  append_many(const std::vector<append_request>& requests) = 0;

  /// Appends one request; see append_many.
  [[nodiscard]] caf::expected<append_result>
  append(const append_request& request) {
    return std::move(append_many({request}).front());
  }

  /// Visits events in position order without holding them all in memory.
  [[nodiscard]] virtual caf::error read(const read_options& opts,
                                        const event_visitor& visit) = 0;

  /// read(), each event handed over decoded. The PostgreSQL store decodes
  /// on its reader thread; this default decodes on the caller's thread.
  /// Replay does not use it: on 2 cores it measured slower than decoding
  /// on the applying thread (bench-event-log measures both).
  [[nodiscard]] virtual caf::error read_decoded(const read_options& opts,
                                                const decoded_visitor& visit) {
    return read(opts, [&visit](recorded_event&& rec) {
      auto ev = decode(rec);
      return visit(std::move(rec), std::move(ev));
    });
  }

  /// Visits the fields `q` names; see field_query.
  [[nodiscard]] virtual caf::error read_fields(const field_query& q,
                                               const fields_visitor& visit) = 0;

  /// Position of the newest event; 0 for an empty log.
  [[nodiscard]] virtual caf::expected<int64_t> last_position() = 0;

  /// Version of `stream` (number of its events); 0 if it has none.
  [[nodiscard]] virtual caf::expected<int64_t>
  stream_version(const std::string& stream) = 0;

  /// Stores a snapshot; a snapshot at the same position is replaced.
  [[nodiscard]] virtual caf::error save_snapshot(const snapshot& snap) = 0;

  /// The newest snapshot at or before `at_most`, if any. A snapshot whose
  /// stored checksum does not match its bytes is errc::corrupt_snapshot.
  [[nodiscard]] virtual caf::expected<std::optional<snapshot>>
  latest_snapshot(int64_t at_most = INT64_MAX) = 0;

  /// Positions of all stored snapshots, oldest first.
  [[nodiscard]] virtual caf::expected<std::vector<int64_t>>
  snapshot_positions() = 0;

  /// Deletes all but the newest `keep` snapshots.
  [[nodiscard]] virtual caf::error prune_snapshots(size_t keep) = 0;
};

} // namespace det
