#pragma once

// Saves snapshots of the state over a PostgreSQL connection of its own.
// The event store's connection carries the log's appends; a snapshot of a
// large cluster is megabytes of text, and saving it there held every
// append (and every request waiting on one) for the insert's whole length.
// A snapshot is only a shortcut for start-up (the log is the truth), so
// writing it beside the appends, in a transaction of its own, is safe: it
// holds the state at exactly its position whichever commits first.
//
// Not thread-safe: one thread uses it (the read model's snapshot replica,
// read/read_model.hpp). Connects on first use and again after a failure.

#include "store/event_store.hpp"

#include <caf/error.hpp>

#include <memory>
#include <string>

namespace det {

/// The writer's application_name in pg_stat_activity.
constexpr const char* snapshot_session_name = "det-master snapshots";

class pg_snapshot_writer {
public:
  /// `url`: the event log's database.
  explicit pg_snapshot_writer(std::string url);
  ~pg_snapshot_writer();
  pg_snapshot_writer(const pg_snapshot_writer&) = delete;
  pg_snapshot_writer& operator=(const pg_snapshot_writer&) = delete;

  /// Saves `snap` (replacing one at the same position), then keeps only
  /// the newest `keep` snapshots. An error names the step that failed.
  caf::error save(const snapshot& snap, size_t keep);

private:
  struct connection; ///< the pqxx connection, when made
  std::string url_;
  std::unique_ptr<connection> conn_;
};

} // namespace det
