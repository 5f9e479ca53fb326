#pragma once

// The cluster's event-sourced state as pure data: apply(state, event) is the
// only way it changes, and replay from the log is the only way it is built.
// The master, det-replay and det-inspect all use this one code path. No CAF
// actors, no I/O. Not thread-safe: one owner at a time.

#include "messages/event.hpp"
#include "messages/events.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace det::state {

struct cluster_state {
  /// Position of the last event applied; 0 for the empty state.
  int64_t position = 0;
  /// Events applied, by type name (for det-replay's summary).
  std::map<std::string, int64_t> applied_by_type;

  friend bool operator==(const cluster_state& a, const cluster_state& b) {
    return a.position == b.position && a.applied_by_type == b.applied_by_type;
  }
  friend bool operator!=(const cluster_state& a, const cluster_state& b) {
    return !(a == b);
  }
};

/// Applies one decoded event recorded at `meta.position`. Fails with
/// errc::invalid_event (naming the position) when the event cannot follow
/// the state, e.g. a position that does not follow the last one applied.
[[nodiscard]] caf::error apply(cluster_state& s, const recorded_event& meta,
                               const domain_event& ev);

/// Decodes and applies a stored event.
[[nodiscard]] caf::error apply(cluster_state& s, const recorded_event& rec);

/// Broken invariants, one sentence each; empty when the state is sound.
std::vector<std::string> check_invariants(const cluster_state& s);

/// The snapshot form of the state.
nlohmann::json to_snapshot(const cluster_state& s);

/// Reads a snapshot; errc::corrupt_snapshot names what is wrong.
caf::expected<cluster_state> from_snapshot(const nlohmann::json& j);

/// The schema version of to_snapshot's output.
constexpr int32_t snapshot_version = 1;

} // namespace det::state
