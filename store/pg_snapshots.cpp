#include "store/append_plan.hpp"
#include "store/pg_snapshot_writer.hpp"
#include "store/pg_store_impl.hpp"

// pg_event_store's snapshots: saved beside the log, the latest at or
// before a position loaded for replay, old ones pruned. Also
// pg_snapshot_writer, which saves them over a connection of its own.

namespace det {

namespace {

// The state goes as a parameter, not quoted into the statement: the
// server then need not lex megabytes of text.
void insert_snapshot(pqxx::connection& c, const snapshot& snap) {
  pqxx::work tx{c};
  tx.exec_params(
      "INSERT INTO snapshots (position, schema_version, state, checksum)"
      " VALUES ($1, $2, $3, $4) ON CONFLICT (position) DO UPDATE SET"
      " schema_version = excluded.schema_version, state = excluded.state,"
      " checksum = excluded.checksum, created_at = now()",
      snap.position, snap.schema_version, snap.state, checksum(snap.state));
  tx.commit();
}

void delete_old_snapshots(pqxx::connection& c, size_t keep) {
  pqxx::work tx{c};
  tx.exec("DELETE FROM snapshots WHERE position NOT IN (SELECT position "
          "FROM snapshots ORDER BY position DESC LIMIT "
          + std::to_string(keep) + ")");
  tx.commit();
}

} // namespace

caf::error pg_event_store::save_snapshot(const snapshot& snap) {
  auto& d = *impl_;
  if (!d.writer())
    return make_error(errc::invalid_argument,
                      "the event log was opened read-only");
  if (auto err = d.ensure_connected())
    return err;
  try {
    insert_snapshot(*d.conn, snap);
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
    delete_old_snapshots(*d.conn, keep);
  } catch (const std::exception& e) {
    d.need_resync = true;
    return db_error("pruning snapshots", e);
  }
  return {};
}

struct pg_snapshot_writer::connection {
  pqxx::connection c;
};

pg_snapshot_writer::pg_snapshot_writer(std::string url)
    : url_(std::move(url)) {}

pg_snapshot_writer::~pg_snapshot_writer() = default;

caf::error pg_snapshot_writer::save(const snapshot& snap, size_t keep) {
  const char* step = "connecting to save a snapshot";
  try {
    if (!conn_ || !conn_->c.is_open()) {
      conn_.reset(new connection{pqxx::connection{url_}});
      // Named for whoever reads pg_stat_activity.
      pqxx::nontransaction tx{conn_->c};
      tx.exec("SET application_name = '" + std::string{snapshot_session_name}
              + "'");
    }
    step = "saving the snapshot";
    insert_snapshot(conn_->c, snap);
    step = "pruning snapshots";
    delete_old_snapshots(conn_->c, keep);
  } catch (const std::exception& e) {
    conn_.reset();
    return db_error(
        std::string{step} + " at position " + std::to_string(snap.position), e);
  }
  return {};
}

} // namespace det
