#pragma once

// The PostgreSQL event store's connection state (store/pg_event_store.hpp),
// shared by its two source files: pg_event_store.cpp (connecting, the
// writer lock, appends and reads) and pg_snapshots.cpp (snapshots). Not
// for other folders.

#include "messages/errc.hpp"
#include "store/migrations.hpp"
#include "store/pg_event_store.hpp"

#include <pqxx/pqxx>

#include <unistd.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace det {

namespace pg_detail {

// Advisory lock keys ("det" + "log" / "mig" in ASCII).
constexpr int64_t writer_lock_key = 0x6465746c6f67;
constexpr int64_t migration_lock_key = 0x6465746d6967;

// The stream version cache is authoritative while we hold the writer lock;
// past this many entries it starts over rather than grow without bound.
constexpr size_t max_cached_streams = 500000;

inline std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0)
    return "unknown";
  return buf;
}

inline caf::error db_error(const std::string& what, const std::exception& e) {
  return make_error(errc::store_unavailable, what + ": " + e.what());
}

/// TCP keepalives (first probe after 10 s idle, then every 5 s, 3
/// unanswered: the connection is dead) and a 30 s limit on data left
/// unacknowledged, on a TCP socket (a Unix socket is left as it is). A
/// server whose host is gone or cut off then fails the statement waiting
/// on it, so an append fails (and the master stops) instead of holding
/// every write forever. A slow server is not cut off: its kernel still
/// answers the probes and acknowledges the data.
void bound_dead_peer(int fd);

} // namespace pg_detail

using pg_detail::db_error;
using pg_detail::host_name;
using pg_detail::max_cached_streams;
using pg_detail::migration_lock_key;
using pg_detail::writer_lock_key;

struct pg_event_store::impl {
  pg_store_options opts;
  std::unique_ptr<pqxx::connection> conn;
  bool need_resync = false;
  int64_t next_position = 1;
  std::unordered_map<std::string, int64_t> versions;

  bool writer() const { return opts.lock != lock_policy::reader; }

  enum class batch_status { done, failed, retry };

  /// A read by COPY: `query(tx)` gives the SELECT, `consume(rows)` reads
  /// the rows and returns the visitor's error when it stopped early (after
  /// cancelling the server's COPY, so the rest of the log is not sent).
  /// Then the rest is dropped and the connection resynced; a database
  /// failure is reported as `what`.
  template <class Query, class Consume>
  caf::error copy_read(const char* what, Query query, Consume consume) {
    if (auto err = ensure_connected())
      return err;
    caf::error visitor_error;
    try {
      pqxx::read_transaction tx{*conn};
      pqxx::stream_from rows{tx, query(tx)};
      visitor_error = consume(rows);
      if (visitor_error) {
        try {
          rows.complete();
        } catch (const std::exception&) {
        }
        need_resync = true;
        return visitor_error;
      }
      rows.complete();
    } catch (const std::exception& e) {
      need_resync = true;
      if (visitor_error)
        return visitor_error;
      return db_error(what, e);
    }
    return {};
  }

  /// One attempt at append_many; fills `out` with one result per request.
  batch_status append_batch(const std::vector<append_request>& requests,
                            std::vector<caf::expected<append_result>>& out);

  caf::error connect() {
    conn.reset();
    try {
      conn = std::make_unique<pqxx::connection>(opts.url);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      // A silent reconnect would drop the session's advisory lock.
      conn->inhibit_reactivation(true);
#pragma GCC diagnostic pop
      pg_detail::bound_dead_peer(conn->sock());
    } catch (const std::exception& e) {
      // libpq's message names host and port, never the password.
      return db_error("cannot connect to PostgreSQL", e);
    }
    return {};
  }

  caf::expected<int> current_schema(pqxx::transaction_base& tx) {
    auto exists =
        tx.exec1("SELECT to_regclass('schema_migrations') IS NOT NULL");
    if (!exists[0].as<bool>())
      return 0;
    return tx
        .exec1("SELECT coalesce(max(version), 0) FROM schema_migrations")[0]
        .as<int>();
  }

  caf::error migrate() {
    auto known = known_schema_version();
    try {
      pqxx::nontransaction lock{*conn};
      lock.exec("SELECT pg_advisory_lock(" + std::to_string(migration_lock_key)
                + ")");
      auto unlock = [&] {
        lock.exec("SELECT pg_advisory_unlock("
                  + std::to_string(migration_lock_key) + ")");
      };
      lock.exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
                "version integer PRIMARY KEY, name text NOT NULL, "
                "applied_at timestamptz NOT NULL DEFAULT now())");
      auto have = current_schema(lock);
      if (!have) {
        unlock();
        return std::move(have.error());
      }
      if (*have > known) {
        unlock();
        return make_error(
            errc::schema_too_new,
            "the database schema is at version " + std::to_string(*have)
                + " but this binary knows versions up to "
                + std::to_string(known) + "; run a newer det-master");
      }
      lock.commit();
      for (const auto& m : migrations()) {
        if (m.version <= *have)
          continue;
        pqxx::work tx{*conn};
        tx.exec(m.sql);
        tx.exec("INSERT INTO schema_migrations (version, name) VALUES ("
                + std::to_string(m.version) + ", " + tx.quote(m.name) + ")");
        tx.commit();
      }
      pqxx::nontransaction done{*conn};
      done.exec("SELECT pg_advisory_unlock("
                + std::to_string(migration_lock_key) + ")");
    } catch (const std::exception& e) {
      return db_error("migrating the event log schema", e);
    }
    return {};
  }

  caf::error check_schema() {
    try {
      pqxx::read_transaction tx{*conn};
      auto have = current_schema(tx);
      if (!have)
        return std::move(have.error());
      if (*have == 0)
        return make_error(errc::not_found,
                          "this database holds no event log (no "
                          "schema_migrations table); start det-master once "
                          "to create it");
      if (*have > known_schema_version())
        return make_error(errc::schema_too_new,
                          "the database schema is at version "
                              + std::to_string(*have)
                              + " but this binary knows versions up to "
                              + std::to_string(known_schema_version()));
    } catch (const std::exception& e) {
      return db_error("reading the schema version", e);
    }
    return {};
  }

  std::string describe_holder(pqxx::transaction_base& tx) {
    auto r = tx.exec("SELECT host, pid, since FROM log_writer");
    if (r.empty())
      return "another session (it has not named itself yet)";
    return "det-master on host " + r[0][0].as<std::string>() + " (pid "
           + r[0][1].as<std::string>() + ") since " + r[0][2].as<std::string>();
  }

  caf::error take_lock() {
    try {
      pqxx::nontransaction tx{*conn};
      auto key = std::to_string(writer_lock_key);
      if (!tx.exec1("SELECT pg_try_advisory_lock(" + key + ")")[0].as<bool>()) {
        auto msg =
            "the event log's writer lock is held by " + describe_holder(tx);
        if (opts.lock == lock_policy::fail_fast)
          return make_error(errc::lock_held, msg);
        if (opts.on_lock_wait)
          opts.on_lock_wait(msg + "; waiting for it");
        tx.exec("SELECT pg_advisory_lock(" + key + ")");
      }
      tx.exec("INSERT INTO log_writer (id, host, pid, since) VALUES (true, "
              + tx.quote(host_name()) + ", " + std::to_string(getpid())
              + ", now()) ON CONFLICT (id) DO UPDATE SET host = "
                "excluded.host, pid = excluded.pid, since = excluded.since");
      next_position =
          tx.exec1("SELECT coalesce(max(position), 0) FROM events")[0]
              .as<int64_t>()
          + 1;
    } catch (const std::exception& e) {
      return db_error("taking the event log's writer lock", e);
    }
    versions.clear();
    return {};
  }

  /// Reconnects and re-takes everything the session held.
  caf::error resync() {
    if (auto err = connect())
      return err;
    if (writer())
      if (auto err = take_lock())
        return err;
    need_resync = false;
    return {};
  }

  caf::error ensure_connected() {
    if (need_resync || !conn || !conn->is_open())
      return resync();
    return {};
  }

  // Looks up the versions of streams not yet cached, in a few round trips.
  void prefetch_versions(pqxx::transaction_base& tx,
                         const std::vector<append_request>& requests) {
    if (versions.size() > max_cached_streams)
      versions.clear();
    std::vector<std::string> missing;
    auto want = [&](const std::string& s) {
      if (versions.find(s) == versions.end()) {
        versions.emplace(s, 0);
        missing.push_back(s);
      }
    };
    for (const auto& req : requests) {
      for (const auto& ev : req.events)
        want(ev.stream);
      for (const auto& exp : req.expected)
        want(exp.stream);
    }
    for (size_t i = 0; i < missing.size(); i += 1000) {
      std::string in;
      for (size_t j = i; j < std::min(missing.size(), i + 1000); ++j) {
        if (!in.empty())
          in += ',';
        in += tx.quote(missing[j]);
      }
      auto r = tx.exec("SELECT stream_id, max(stream_version) FROM events "
                       "WHERE stream_id IN ("
                       + in + ") GROUP BY stream_id");
      for (const auto& row : r)
        versions[row[0].as<std::string>()] = row[1].as<int64_t>();
    }
  }

  /// After a lost connection: did positions first..last commit as ours?
  bool committed(int64_t last, const std::string& stream, int64_t version) {
    try {
      pqxx::read_transaction tx{*conn};
      auto r = tx.exec("SELECT stream_id, stream_version FROM events WHERE "
                       "position = "
                       + std::to_string(last));
      return !r.empty() && r[0][0].as<std::string>() == stream
             && r[0][1].as<int64_t>() == version;
    } catch (const std::exception&) {
      return false;
    }
  }
};

} // namespace det
