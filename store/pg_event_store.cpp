#include "store/pg_event_store.hpp"

#include "messages/errc.hpp"
#include "store/append_plan.hpp"
#include "store/copy_text.hpp"
#include "store/migrations.hpp"
#include "store/pg_store_impl.hpp"
#include "store/pipelined_read.hpp"

#include <pqxx/pqxx>
#include <pqxx/tablewriter>

#include <nlohmann/json.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <tuple>
#include <unordered_map>

namespace det {

void pg_detail::bound_dead_peer(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (fd < 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0
      || (addr.ss_family != AF_INET && addr.ss_family != AF_INET6))
    return;
  // Best effort: a socket option the kernel refuses leaves the connection
  // as libpq made it.
  int on = 1, idle = 10, interval = 5, count = 3;
  unsigned int unacked_ms = 30000;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &unacked_ms,
             sizeof(unacked_ms));
}

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
  // Set once the COPY's end is on its way: from then on a lost answer may
  // hide a commit.
  bool sent = false;
  try {
    // Autocommit: the COPY below is its own transaction, durable when its
    // answer arrives; two round trips (the COPY's start, then the rows
    // and its end), where a BEGIN, a COPY and a COMMIT took four. A
    // multi-row INSERT of literals took one, but the server spent about a
    // third of its time on the batch lexing, analysing and planning the
    // statement (perf, 64-event batches), and COPY measured faster.
    pqxx::nontransaction tx{*d.conn};
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
    // Every row is encoded before the COPY starts: once it has, an
    // exception would end it from tablewriter's destructor, and the rows
    // would commit while the callers are told they failed.
    std::string rows;
    int64_t p = first;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (!out[i])
        continue;
      const auto& evs = requests[i].events;
      for (size_t j = 0; j < evs.size(); ++j) {
        if (!rows.empty())
          rows += '\n';
        append_copy_row(rows, p++, evs[j], planned[i][j]);
        last_stream = evs[j].stream;
        last_version = planned[i][j];
      }
    }
    static const std::vector<std::string> columns{"position",       "stream_id",
                                                  "stream_version", "type",
                                                  "schema_version", "payload"};
    // From the COPY's start on, a failure may still end it into a commit
    // (tablewriter's destructor ends it): the log decides what happened.
    sent = true;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    // stream_to keeps its raw-line writer private; tablewriter takes the
    // rows already escaped, all in one piece.
    pqxx::tablewriter copy{tx, "events", columns.begin(), columns.end()};
    copy.write_raw_line(rows);
#pragma GCC diagnostic pop
    copy.complete();
  } catch (const std::exception& e) {
    if (sent) {
      // The COPY's end went out; its answer may not have come back. Once the
      // lock is ours again (the old session is gone), the log says.
      bool lost = dynamic_cast<const pqxx::broken_connection*>(&e) != nullptr;
      if (lost && !d.resync()) {
        if (d.committed(pos - 1, last_stream, last_version)) {
          d.next_position = pos;
          for (auto& [s, v] : tentative)
            d.versions[s] = v;
          return batch_status::done;
        }
        // Not in the log, and the new session holds the lock: nothing of
        // this batch can commit later.
        fail_all(db_error("appending to the event log", e));
        return batch_status::retry;
      }
      d.need_resync = true;
      if (lost)
        return fail_all(make_error(errc::store_unavailable,
                                   "the connection was lost during commit and "
                                   "the events are not known to be in the "
                                   "log"));
      // Positions or versions may have moved under us (another writer
      // despite the lock, or a manual change): reload before the next
      // append.
      return fail_all(db_error("appending to the event log", e));
    }
    // Nothing was sent: nothing was written.
    d.need_resync = true;
    bool lost = dynamic_cast<const pqxx::broken_connection*>(&e) != nullptr;
    fail_all(db_error("appending to the event log", e));
    return lost ? batch_status::retry : batch_status::failed;
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

namespace {

// The SELECT of read() and read_decoded(): the events `opts` names, in
// position order.
std::string events_query(const read_options& opts, pqxx::read_transaction& tx) {
  std::string q = "(SELECT position, stream_id, stream_version, type, "
                  "schema_version, payload, (date_part('epoch', recorded_at)"
                  " * 1000000)::bigint FROM events WHERE position > "
                  + std::to_string(opts.after);
  if (opts.up_to)
    q += " AND position <= " + std::to_string(*opts.up_to);
  // One stream's events are in position order when in version order, and
  // that order follows the (stream_id, stream_version) index: no scan of
  // the whole log for a stream.
  if (opts.stream)
    q += " AND stream_id = " + tx.quote(*opts.stream)
         + " ORDER BY stream_version)";
  else
    q += " ORDER BY position)";
  return q;
}

// One event of read_decoded() on its way from the reader thread.
struct decoded_row {
  recorded_event rec;
  caf::expected<domain_event> ev{domain_event{}};
};

} // namespace

caf::error pg_event_store::read(const read_options& opts,
                                const event_visitor& visit) {
  auto& d = *impl_;
  auto query = [&opts](pqxx::read_transaction& tx) {
    return events_query(opts, tx);
  };
  auto consume = [&](pqxx::stream_from& rows) {
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
      } else {
        rec.parsed = nullptr; // `rec` may be one visited before
      }
      return {};
    };
    auto cancel = [&d] { d.conn->cancel_query(); };
    return pipelined_read(produce, visit, cancel);
  };
  return d.copy_read("reading the event log", query, consume);
}

caf::error pg_event_store::read_decoded(const read_options& opts,
                                        const decoded_visitor& visit) {
  auto& d = *impl_;
  auto query = [&opts](pqxx::read_transaction& tx) {
    return events_query(opts, tx);
  };
  auto consume = [&](pqxx::stream_from& rows) {
    std::string line;
    // The payload's JSON tree is built and freed here, on the reader
    // thread; only the decoded event crosses to the visitor.
    auto produce = [&](decoded_row& row, bool& done) -> caf::error {
      if (!rows.get_raw_line(line)) {
        done = true;
        return {};
      }
      if (auto err = parse_event_line(line, row.rec))
        return err;
      row.ev = decode(row.rec);
      return {};
    };
    auto apply = [&visit](decoded_row&& row) {
      return visit(std::move(row.rec), std::move(row.ev));
    };
    auto cancel = [&d] { d.conn->cancel_query(); };
    return pipelined_read_items<decoded_row>(produce, apply, cancel);
  };
  return d.copy_read("reading the event log", query, consume);
}

caf::error pg_event_store::read_fields(const field_query& q,
                                       const fields_visitor& visit) {
  auto& d = *impl_;
  // COPY of (position, payload->'a', payload->'b', ...): jsonb renders
  // each field; a missing one is NULL. The (stream_id, stream_version)
  // index gives the stream's events in order.
  auto query = [&q](pqxx::read_transaction& tx) {
    std::string text = "(SELECT position";
    for (const auto& f : q.fields)
      text += ", payload->" + tx.quote(f);
    return text + " FROM events WHERE stream_id = " + tx.quote(q.stream)
           + " AND type = " + tx.quote(q.type) + " ORDER BY stream_version)";
  };
  auto consume = [&](pqxx::stream_from& rows) {
    std::string line;
    std::vector<std::string> fields;
    std::vector<bool> nulls;
    caf::error err;
    while (!err && rows.get_raw_line(line)) {
      split_copy_line(line, fields, nulls);
      int64_t position = 0;
      try {
        position =
            fields.size() == q.fields.size() + 1 ? std::stoll(fields[0]) : 0;
      } catch (const std::exception&) {
      }
      if (position <= 0) {
        err =
            make_error(errc::invalid_event, "a projected row of stream "
                                                + q.stream + " cannot be read");
        break;
      }
      fields.erase(fields.begin());
      err = visit(position, fields);
    }
    if (err)
      d.conn->cancel_query(); // the rest is not wanted
    return err;
  };
  return d.copy_read("reading fields of the event log", query, consume);
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

} // namespace det
