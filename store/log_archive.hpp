#pragma once

// Trials' and tasks' log lines kept in PostgreSQL (table log_lines,
// migration 005), so that `det trial logs` and `det task logs` show what a
// process printed before the master restarted. The in-memory books
// (api/trial_logs.hpp, api/task_logs.hpp) stay what the routes read; they
// hand each line they keep to save(), and a restarted master fills them
// with load() before it serves.
//
// A key names the owner of the lines: "trial:<id>" or "task:<uuid>"; a
// line's id is the book's own (1-based per key, never reused).
//
// Writes are off the caller's thread: save() queues and returns at once;
// one writer thread sends a batch at a time (one INSERT of up to 2,000
// rows, ON CONFLICT DO NOTHING, so a batch sent twice is harmless). While
// the database is away the queue holds up to `max_queued` lines and then
// drops the oldest, saying so in the master's log once per outage: log
// lines are the process's output, not the cluster's state, and the master
// must not stop or grow without bound for them. What the last batch held
// when the master was killed may be lost (at most one second's lines).

#include <caf/expected.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace det {

struct archived_line {
  std::string key;
  int64_t id = 0;
  std::string agent_id;
  int64_t at_us = 0;
  std::string source;
  std::string text;
};

class log_archive {
public:
  virtual ~log_archive();
  /// Queues `lines` to keep; never blocks on the database.
  virtual void save(std::vector<archived_line> lines) = 0;
  /// Drops every line of `keys` (a trial's log retention ran out, a task
  /// was forgotten), after the lines queued before.
  virtual void forget(std::vector<std::string> keys) = 0;
  /// The last `per_key` lines of each key starting with `prefix` ("trial:",
  /// "task:"), each key's oldest first: what a starting master fills its
  /// books with.
  [[nodiscard]] virtual caf::expected<std::vector<archived_line>>
  load(const std::string& prefix, size_t per_key) = 0;
  /// Returns once what was queued before the call is written (or dropped),
  /// or after 10 s while the database is away: for tests and an orderly
  /// shutdown.
  virtual void flush() = 0;
};

/// Opens its own connection to `url` (the schema already migrated) and
/// starts the writer thread; the destructor writes what is queued (bounded
/// by one attempt) and joins it. Fails with errc::store_unavailable.
[[nodiscard]] caf::expected<std::unique_ptr<log_archive>>
open_pg_log_archive(const std::string& url, size_t max_queued = 200000);

/// The text as the log_lines table can hold it: a NUL becomes U+FFFD.
std::string storable_log_text(const std::string& text);

} // namespace det
