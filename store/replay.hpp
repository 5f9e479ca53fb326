#pragma once

// det-replay's work, apart from argument parsing and printing: read the log
// (up to a position, or one stream), decode and apply every event through
// state/, check invariants, and compare stored snapshots with the state
// rebuilt from the events before them.

#include "state/cluster_state.hpp"
#include "store/event_store.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace det::replay {

struct options {
  std::optional<int64_t> to;
  std::optional<std::string> stream;
  bool verify_snapshots = false;
  /// Check invariants after every event (always checked at the end).
  bool check_each = false;
};

struct snapshot_check {
  int64_t position = 0;
  bool matches = false;
  /// Why not, when it does not match.
  std::string detail;
};

struct report {
  std::map<std::string, int64_t> counts_by_type;
  int64_t events = 0;
  int64_t last_position = 0;
  std::vector<snapshot_check> snapshots;
  std::vector<std::string> broken_invariants;
  /// The first unreadable or inapplicable event; replay stopped there.
  std::string error;
  double seconds = 0;
  bool ok() const;
};

/// Replays `log`. Snapshots are read through `snapshots` (a second
/// connection, since `log` is busy streaming); may be the same store for
/// in-memory logs.
report run(event_store& log, event_store& snapshots, const options& opts);

/// The first path at which two JSON documents differ ("/agents/a1/slots"),
/// or "" when equal.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b,
                             const std::string& path = "");

} // namespace det::replay
