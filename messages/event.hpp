#pragma once

// The event log's units, as plain data. The log stores, per event, a stream
// ("trial/42", "instance/i-0abc", "cluster"), the stream's version after the
// event (1 for the first event of a stream), a type name, the payload's
// schema version and the payload as JSON text. Positions are global,
// contiguous and start at 1. Typed events (events.hpp) convert to and from
// these envelopes.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace det {

struct event_envelope {
  std::string type;
  int32_t schema_version = 1;
  /// A JSON object, as text.
  std::string payload;
};

/// One event to append to `stream`.
struct new_event {
  std::string stream;
  event_envelope body;
};

/// One event as stored.
struct recorded_event {
  int64_t position = 0;
  std::string stream;
  int64_t stream_version = 0;
  event_envelope body;
  /// Microseconds since the Unix epoch, as the database recorded it.
  int64_t recorded_at_us = 0;
  /// The payload already parsed (by a reader asked to, on its own thread);
  /// discarded (null) when it did not parse, so decode reports why.
  nlohmann::json parsed = nullptr;
};

/// The expected version of one stream for an append. A stream that has never
/// been written to is at version 0.
struct stream_expectation {
  std::string stream;
  /// No value: accept any version.
  std::optional<int64_t> version;
};

/// One atomic append: all events or none, and only if every expectation
/// holds. Streams without an expectation accept any version.
struct append_request {
  std::vector<new_event> events;
  std::vector<stream_expectation> expected;
};

/// Where an append landed: positions first..last, contiguous.
struct append_result {
  int64_t first_position = 0;
  int64_t last_position = 0;
};

} // namespace det
