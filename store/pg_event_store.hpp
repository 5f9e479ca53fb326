#pragma once

// The event log in PostgreSQL. The only file that includes <pqxx/pqxx> is
// its implementation.
//
// One writer: a store opened as a writer holds a session advisory lock for
// its lifetime and assigns positions itself, so positions are contiguous and
// commit-ordered. A second writer waits for the lock (a hot standby), or
// with lock_policy::fail_fast fails at once with errc::lock_held naming the
// holder's host and pid. Readers take no lock. Opening applies missing
// migrations and refuses a newer schema (errc::schema_too_new).
//
// Not thread-safe: one owner (the group_appender's thread, or a reader).
// If the connection fails, the next call reconnects, re-takes the lock and
// reloads what it caches; a commit whose outcome was lost with the
// connection is looked up in the log before it is reported as failed.

#include "store/event_store.hpp"

#include <functional>
#include <memory>
#include <string>

namespace det {

enum class lock_policy {
  /// Take the writer lock, waiting as long as another process holds it.
  wait,
  /// Take the writer lock or fail at once with errc::lock_held.
  fail_fast,
  /// Read-only: no lock; append_many fails.
  reader,
};

struct pg_store_options {
  /// libpq connection string or URL.
  std::string url;
  lock_policy lock = lock_policy::wait;
  /// Apply missing migrations at open (readers: only check the version).
  bool migrate = true;
  /// Told, once, who holds the lock when open() has to wait for it.
  std::function<void(const std::string&)> on_lock_wait;
};

class pg_event_store : public event_store {
public:
  /// Connects, migrates and (for writers) takes the writer lock.
  [[nodiscard]] static caf::expected<std::unique_ptr<pg_event_store>>
  open(const pg_store_options& opts);

  ~pg_event_store() override;

  std::vector<caf::expected<append_result>>
  append_many(const std::vector<append_request>& requests) override;
  caf::error read(const read_options& opts,
                  const event_visitor& visit) override;
  caf::error read_decoded(const read_options& opts,
                          const decoded_visitor& visit) override;
  caf::error read_fields(const field_query& q,
                         const fields_visitor& visit) override;
  caf::expected<int64_t> last_position() override;
  caf::expected<int64_t> stream_version(const std::string& stream) override;
  caf::error save_snapshot(const snapshot& snap) override;
  caf::expected<std::optional<snapshot>>
  latest_snapshot(int64_t at_most = INT64_MAX) override;
  caf::expected<std::vector<int64_t>> snapshot_positions() override;
  caf::error prune_snapshots(size_t keep) override;

  /// The schema version of the database (newest migration applied).
  caf::expected<int> schema_version();

  /// The schema version this binary knows.
  static int known_schema_version();

  struct impl;

private:
  explicit pg_event_store(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

} // namespace det
