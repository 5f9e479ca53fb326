#include "store/pg_event_store.hpp"

#include "messages/errc.hpp"
#include "store/append_plan.hpp"
#include "store/copy_text.hpp"
#include "store/migrations.hpp"
#include "store/pipelined_read.hpp"

#include <pqxx/pqxx>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <tuple>
#include <unordered_map>

namespace det {

namespace {

// Advisory lock keys ("det" + "log" / "mig" in ASCII).
constexpr int64_t writer_lock_key = 0x6465746c6f67;
constexpr int64_t migration_lock_key = 0x6465746d6967;

// The stream version cache is authoritative while we hold the writer lock;
// past this many entries it starts over rather than grow without bound.
constexpr size_t max_cached_streams = 500000;

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0)
    return "unknown";
  return buf;
}

caf::error db_error(const std::string& what, const std::exception& e) {
  return make_error(errc::store_unavailable, what + ": " + e.what());
}

} // namespace

struct pg_event_store::impl {
  pg_store_options opts;
  std::unique_ptr<pqxx::connection> conn;
  bool need_resync = false;
  int64_t next_position = 1;
  std::unordered_map<std::string, int64_t> versions;

  bool writer() const { return opts.lock != lock_policy::reader; }

  enum class batch_status { done, failed, retry };

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

pg_event_store::impl::batch_status pg_event_store::impl::append_batch(
    const std::vector<append_request>& requests,
    std::vector<caf::expected<append_result>>& out) {
  auto& d = *this;
  out.clear();
  out.reserve(requests.size());
  auto fail_all = [&](const caf::error& err) {
    out.clear();
    for (size_t i = 0; i < requests.size(); ++i)
      out.emplace_back(err);
    return batch_status::failed;
  };
  if (auto err = d.ensure_connected())
    return fail_all(err);
  // Plan every request against the cached versions, then write the ones
  // that may be written in one transaction.
  tentative_versions tentative;
  std::vector<std::vector<int64_t>> planned(requests.size());
  int64_t first = d.next_position;
  int64_t pos = first;
  std::string last_stream;
  int64_t last_version = 0;
  try {
    pqxx::work tx{*d.conn};
    d.prefetch_versions(tx, requests);
    auto current = [&d](const std::string& s) {
      auto i = d.versions.find(s);
      return i == d.versions.end() ? int64_t{0} : i->second;
    };
    for (size_t i = 0; i < requests.size(); ++i) {
      if (auto err = plan_append(requests[i], current, tentative, planned[i])) {
        out.emplace_back(std::move(err));
        continue;
      }
      append_result res{pos, pos + static_cast<int64_t>(planned[i].size()) - 1};
      pos = res.last_position + 1;
      out.emplace_back(res);
    }
    if (pos == first)
      return batch_status::done; // nothing to write
    {
      pqxx::stream_to copy{
          tx, "events",
          std::vector<std::string>{"position", "stream_id", "stream_version",
                                   "type", "schema_version", "payload"}};
      int64_t p = first;
      for (size_t i = 0; i < requests.size(); ++i) {
        if (!out[i])
          continue;
        const auto& evs = requests[i].events;
        for (size_t j = 0; j < evs.size(); ++j) {
          copy << std::make_tuple(p++, evs[j].stream, planned[i][j],
                                  evs[j].body.type, evs[j].body.schema_version,
                                  evs[j].body.payload);
          last_stream = evs[j].stream;
          last_version = planned[i][j];
        }
      }
      copy.complete();
    }
    tx.commit();
  } catch (const pqxx::in_doubt_error&) {
    // The commit went out but its answer did not come back.
    if (!d.resync() && d.committed(pos - 1, last_stream, last_version)) {
      for (auto& [s, v] : tentative)
        d.versions[s] = v;
      return batch_status::done;
    }
    d.need_resync = true;
    return fail_all(make_error(errc::store_unavailable,
                               "the connection was lost during commit and "
                               "the events are not in the log"));
  } catch (const pqxx::broken_connection& e) {
    d.need_resync = true;
    fail_all(db_error("appending to the event log", e));
    return batch_status::retry;
  } catch (const std::exception& e) {
    // Positions or versions may have moved under us (another writer
    // despite the lock, or a manual change): reload before the next append.
    d.need_resync = true;
    return fail_all(db_error("appending to the event log", e));
  }
  d.next_position = pos;
  for (auto& [s, v] : tentative)
    d.versions[s] = v;
  return batch_status::done;
}

caf::expected<std::unique_ptr<pg_event_store>>
pg_event_store::open(const pg_store_options& opts) {
  auto p = std::make_unique<impl>();
  p->opts = opts;
  if (auto err = p->connect())
    return err;
  if (opts.migrate && p->writer()) {
    if (auto err = p->migrate())
      return err;
  } else if (auto err = p->check_schema()) {
    return err;
  }
  if (p->writer())
    if (auto err = p->take_lock())
      return err;
  return std::unique_ptr<pg_event_store>{new pg_event_store(std::move(p))};
}

pg_event_store::pg_event_store(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

pg_event_store::~pg_event_store() = default;

int pg_event_store::known_schema_version() {
  return migrations().empty() ? 0 : migrations().back().version;
}

caf::expected<int> pg_event_store::schema_version() {
  if (auto err = impl_->ensure_connected())
    return err;
  try {
    pqxx::read_transaction tx{*impl_->conn};
    return impl_->current_schema(tx);
  } catch (const std::exception& e) {
    impl_->need_resync = true;
    return db_error("reading the schema version", e);
  }
}

std::vector<caf::expected<append_result>>
pg_event_store::append_many(const std::vector<append_request>& requests) {
  auto& d = *impl_;
  if (!d.writer())
    return std::vector<caf::expected<append_result>>(
        requests.size(), make_error(errc::invalid_argument,
                                    "the event log was opened read-only"));
  std::vector<caf::expected<append_result>> out;
  // A connection found broken before the commit was sent lost nothing:
  // reconnect (re-taking the lock) and try once more.
  for (int attempt = 0;; ++attempt) {
    auto st = d.append_batch(requests, out);
    if (st != impl::batch_status::retry || attempt == 1)
      return out;
  }
}

caf::error pg_event_store::read(const read_options& opts,
                                const event_visitor& visit) {
  auto& d = *impl_;
  if (auto err = d.ensure_connected())
    return err;
  caf::error visitor_error;
  try {
    pqxx::read_transaction tx{*d.conn};
    std::string q = "(SELECT position, stream_id, stream_version, type, "
                    "schema_version, payload, (date_part('epoch', recorded_at)"
                    " * 1000000)::bigint FROM events WHERE position > "
                    + std::to_string(opts.after);
    if (opts.up_to)
      q += " AND position <= " + std::to_string(*opts.up_to);
    // One stream's events are in position order when in version order,
    // and that order follows the (stream_id, stream_version) index: no
    // scan of the whole log for a stream.
    if (opts.stream)
      q += " AND stream_id = " + tx.quote(*opts.stream)
           + " ORDER BY stream_version)";
    else
      q += " ORDER BY position)";
    pqxx::stream_from rows{tx, q};
    std::string line;
    auto produce = [&](recorded_event& rec, bool& done) -> caf::error {
      if (!rows.get_raw_line(line)) {
        done = true;
        return {};
      }
      if (auto err = parse_event_line(line, rec))
        return err;
      if (opts.parse_payloads) {
        rec.parsed = nlohmann::json::parse(rec.body.payload, nullptr, false);
        if (rec.parsed.is_discarded())
          rec.parsed = nullptr;
      }
      return {};
    };
    // Stop the server's COPY instead of reading the rest of the log.
    auto cancel = [&d] { d.conn->cancel_query(); };
    visitor_error = pipelined_read(produce, visit, cancel);
    if (visitor_error) {
      try {
        rows.complete();
      } catch (const std::exception&) {
      }
      d.need_resync = true;
      return visitor_error;
    }
    rows.complete();
  } catch (const std::exception& e) {
    d.need_resync = true;
    if (visitor_error)
      return visitor_error;
    return db_error("reading the event log", e);
  }
  return {};
}

caf::error pg_event_store::read_fields(const field_query& q,
                                       const fields_visitor& visit) {
  auto& d = *impl_;
  if (auto err = d.ensure_connected())
    return err;
  caf::error visitor_error;
  try {
    pqxx::read_transaction tx{*d.conn};
    // COPY of (position, payload->'a', payload->'b', ...): jsonb renders
    // each field; a missing one is NULL. The (stream_id, stream_version)
    // index gives the stream's events in order.
    std::string q_text = "(SELECT position";
    for (const auto& f : q.fields)
      q_text += ", payload->" + tx.quote(f);
    q_text += " FROM events WHERE stream_id = " + tx.quote(q.stream)
              + " AND type = " + tx.quote(q.type) + " ORDER BY stream_version)";
    pqxx::stream_from rows{tx, q_text};
    std::string line;
    std::vector<std::string> fields;
    std::vector<bool> nulls;
    while (!visitor_error && rows.get_raw_line(line)) {
      split_copy_line(line, fields, nulls);
      int64_t position = 0;
      try {
        position =
            fields.size() == q.fields.size() + 1 ? std::stoll(fields[0]) : 0;
      } catch (const std::exception&) {
      }
      if (position <= 0) {
        visitor_error =
            make_error(errc::invalid_event, "a projected row of stream "
                                                + q.stream + " cannot be read");
        break;
      }
      fields.erase(fields.begin());
      visitor_error = visit(position, fields);
    }
    if (visitor_error) {
      // Stop the server's COPY instead of reading the rest.
      d.conn->cancel_query();
      try {
        rows.complete();
      } catch (const std::exception&) {
      }
      d.need_resync = true;
      return visitor_error;
    }
    rows.complete();
  } catch (const std::exception& e) {
    d.need_resync = true;
    if (visitor_error)
      return visitor_error;
    return db_error("reading fields of the event log", e);
  }
  return {};
}

caf::expected<int64_t> pg_event_store::last_position() {
  auto& d = *impl_;
  if (auto err = d.ensure_connected())
    return err;
  try {
    pqxx::read_transaction tx{*d.conn};
    return tx.exec1("SELECT coalesce(max(position), 0) FROM events")[0]
        .as<int64_t>();
  } catch (const std::exception& e) {
    d.need_resync = true;
    return db_error("reading the last position", e);
  }
}

caf::expected<int64_t>
pg_event_store::stream_version(const std::string& stream) {
  auto& d = *impl_;
  if (auto err = d.ensure_connected())
    return err;
  try {
    pqxx::read_transaction tx{*d.conn};
    return tx
        .exec1("SELECT coalesce(max(stream_version), 0) FROM events WHERE "
               "stream_id = "
               + tx.quote(stream))[0]
        .as<int64_t>();
  } catch (const std::exception& e) {
    d.need_resync = true;
    return db_error("reading stream " + stream, e);
  }
}

caf::error pg_event_store::save_snapshot(const snapshot& snap) {
  auto& d = *impl_;
  if (!d.writer())
    return make_error(errc::invalid_argument,
                      "the event log was opened read-only");
  if (auto err = d.ensure_connected())
    return err;
  try {
    pqxx::work tx{*d.conn};
    tx.exec("INSERT INTO snapshots (position, schema_version, state, checksum)"
            " VALUES ("
            + std::to_string(snap.position) + ", "
            + std::to_string(snap.schema_version) + ", " + tx.quote(snap.state)
            + ", " + tx.quote(checksum(snap.state))
            + ") ON CONFLICT (position) DO UPDATE SET schema_version = "
              "excluded.schema_version, state = excluded.state, checksum = "
              "excluded.checksum, created_at = now()");
    tx.commit();
  } catch (const std::exception& e) {
    d.need_resync = true;
    return db_error(
        "saving the snapshot at position " + std::to_string(snap.position), e);
  }
  return {};
}

caf::expected<std::optional<snapshot>>
pg_event_store::latest_snapshot(int64_t at_most) {
  auto& d = *impl_;
  if (auto err = d.ensure_connected())
    return err;
  try {
    pqxx::read_transaction tx{*d.conn};
    auto r =
        tx.exec("SELECT position, schema_version, state, checksum, "
                "(date_part('epoch', created_at) * 1000000)::bigint "
                "FROM snapshots WHERE position <= "
                + std::to_string(at_most) + " ORDER BY position DESC LIMIT 1");
    if (r.empty())
      return std::optional<snapshot>{};
    snapshot s;
    s.position = r[0][0].as<int64_t>();
    s.schema_version = r[0][1].as<int32_t>();
    s.state = r[0][2].as<std::string>();
    s.created_at_us = r[0][4].as<int64_t>();
    if (checksum(s.state) != r[0][3].as<std::string>())
      return make_error(errc::corrupt_snapshot,
                        "snapshot at position " + std::to_string(s.position)
                            + ": checksum mismatch (stored "
                            + r[0][3].as<std::string>() + ", computed "
                            + checksum(s.state) + ")");
    return std::optional<snapshot>{std::move(s)};
  } catch (const std::exception& e) {
    d.need_resync = true;
    return db_error("loading a snapshot", e);
  }
}

caf::expected<std::vector<int64_t>> pg_event_store::snapshot_positions() {
  auto& d = *impl_;
  if (auto err = d.ensure_connected())
    return err;
  try {
    pqxx::read_transaction tx{*d.conn};
    std::vector<int64_t> out;
    for (const auto& row :
         tx.exec("SELECT position FROM snapshots ORDER BY position"))
      out.push_back(row[0].as<int64_t>());
    return out;
  } catch (const std::exception& e) {
    d.need_resync = true;
    return db_error("listing snapshots", e);
  }
}

caf::error pg_event_store::prune_snapshots(size_t keep) {
  auto& d = *impl_;
  if (auto err = d.ensure_connected())
    return err;
  try {
    pqxx::work tx{*d.conn};
    tx.exec("DELETE FROM snapshots WHERE position NOT IN (SELECT position "
            "FROM snapshots ORDER BY position DESC LIMIT "
            + std::to_string(keep) + ")");
    tx.commit();
  } catch (const std::exception& e) {
    d.need_resync = true;
    return db_error("pruning snapshots", e);
  }
  return {};
}

} // namespace det
