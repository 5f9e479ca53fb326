#pragma once

// Start-up: the only way state is built. Loads the newest snapshot (unless
// told not to), applies every event after it through state/, and returns
// the state. A corrupt snapshot or an event that does not decode or apply
// stops recovery with an error naming it; nothing is guessed.

#include "state/cluster_state.hpp"
#include "store/event_store.hpp"

#include <caf/expected.hpp>

#include <optional>

namespace det {

struct recovery_report {
  /// Position of the snapshot used; 0 when replayed from the start.
  int64_t snapshot_position = 0;
  int64_t events_replayed = 0;
};

/// With `up_to`, the state after that position instead (det-inspect's
/// state --at): the newest snapshot at or before it, then the events up to
/// it.
[[nodiscard]] caf::expected<state::cluster_state>
recover(event_store& log, bool use_snapshot, recovery_report* report = nullptr,
        std::optional<int64_t> up_to = std::nullopt);

/// Saves the state as a snapshot at its position and keeps the newest
/// `keep` snapshots.
[[nodiscard]] caf::error save_snapshot(event_store& log,
                                       const state::cluster_state& st,
                                       size_t keep = 3);

} // namespace det
