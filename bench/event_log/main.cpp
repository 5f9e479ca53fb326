// bench-event-log: durable append and replay rates of the PostgreSQL event
// log, each against the physical reference measured in the same run (a raw
// COPY into an identical table; a raw COPY ... TO STDOUT of the same rows).
// One JSON line per result. Database: DET_BENCH_PG_URL (a server URL; the
// benchmark creates its own database).
//
//   bench-event-log [--seconds S] [--replay-events N]

#include "bench/support/history.hpp"
#include "messages/errc.hpp"
#include "messages/events.hpp"
#include "state/cluster_state.hpp"
#include "store/group_appender.hpp"
#include "store/pg_event_store.hpp"

#include <pqxx/pqxx>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

using namespace det;
using clk = std::chrono::steady_clock;

namespace {

double seconds_since(clk::time_point t) {
  return std::chrono::duration<double>(clk::now() - t).count();
}

// CPU time of the whole process so far (every thread), in seconds.
double process_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto tv = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return tv(u.ru_utime) + tv(u.ru_stime);
}

double percentile(std::vector<double> xs, double p) {
  if (xs.empty())
    return 0;
  std::sort(xs.begin(), xs.end());
  auto i = static_cast<size_t>(p * static_cast<double>(xs.size() - 1));
  return xs[i];
}

void emit(const nlohmann::json& j) {
  std::cout << j.dump() << std::endl;
}

// A realistic event: a trial's checkpoint with a little metadata.
new_event sample_event(int64_t trial, int64_t step) {
  trial_checkpointed ev;
  ev.trial_id = trial;
  ev.uuid = "5f1c8a3e-0000-4000-8000-" + std::to_string(100000000000 + step);
  ev.steps_completed = step;
  ev.metadata = {{"framework", "torch-2.3"}, {"format", "pickle"}};
  return to_new_event(ev);
}

std::string fresh_db(const std::string& server, const std::string& name) {
  pqxx::connection c{server};
  pqxx::nontransaction tx{c};
  tx.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  tx.exec("CREATE DATABASE " + name);
  return server.substr(0, server.rfind('/') + 1) + name;
}

std::unique_ptr<pg_event_store> open_writer(const std::string& url) {
  auto s = pg_event_store::open({url, lock_policy::wait, true, nullptr});
  if (!s) {
    std::cerr << "bench-event-log: " << render(s.error()) << "\n";
    std::exit(1);
  }
  return std::move(*s);
}

// One caller appending batches of `batch` events, each awaited; events/s.
double single_caller(const std::string& url, int batch, double secs) {
  auto store = open_writer(url);
  std::vector<double> lat;
  int64_t events = 0, n = 0;
  auto start = clk::now();
  while (seconds_since(start) < secs) {
    append_request req;
    for (int i = 0; i < batch; ++i)
      req.events.push_back(sample_event(n % 1000, n));
    auto t = clk::now();
    auto r = store->append(req);
    lat.push_back(seconds_since(t) * 1000);
    if (!r) {
      std::cerr << render(r.error()) << "\n";
      std::exit(1);
    }
    events += batch;
    ++n;
  }
  auto el = seconds_since(start);
  emit({{"bench", "event_log"},
        {"metric", "append_single_caller_batch_" + std::to_string(batch)},
        {"value", static_cast<double>(events) / el},
        {"unit", "events/s"},
        {"p50_ack_ms", percentile(lat, 0.5)},
        {"p99_ack_ms", percentile(lat, 0.99)}});
  return static_cast<double>(events) / el;
}

// `callers` threads, one event per append, through the group appender.
double group_commit(const std::string& url, int callers, double secs) {
  auto store = open_writer(url);
  group_appender app{*store};
  std::atomic<bool> stop{false};
  std::vector<std::vector<double>> lat(static_cast<size_t>(callers));
  std::vector<int64_t> counts(static_cast<size_t>(callers), 0);
  std::vector<std::thread> ts;
  auto start = clk::now();
  for (int c = 0; c < callers; ++c)
    ts.emplace_back([&, c] {
      int64_t n = 0;
      while (!stop) {
        auto t = clk::now();
        auto r = app.submit({{sample_event(c, n++)}, {}}).get();
        lat[static_cast<size_t>(c)].push_back(seconds_since(t) * 1000);
        if (!r) {
          std::cerr << render(r.error()) << "\n";
          std::exit(1);
        }
        ++counts[static_cast<size_t>(c)];
      }
    });
  std::this_thread::sleep_for(std::chrono::duration<double>(secs));
  stop = true;
  for (auto& t : ts)
    t.join();
  auto el = seconds_since(start);
  std::vector<double> all;
  int64_t total = 0;
  for (int c = 0; c < callers; ++c) {
    all.insert(all.end(), lat[static_cast<size_t>(c)].begin(),
               lat[static_cast<size_t>(c)].end());
    total += counts[static_cast<size_t>(c)];
  }
  auto st = app.stats();
  double rate = static_cast<double>(total) / el;
  emit({{"bench", "event_log"},
        {"metric",
         "append_group_commit_" + std::to_string(callers) + "_callers"},
        {"value", rate},
        {"unit", "events/s"},
        {"p50_ack_ms", percentile(all, 0.5)},
        {"p99_ack_ms", percentile(all, 0.99)},
        {"mean_batch_events", st.batches ? static_cast<double>(st.events)
                                               / static_cast<double>(st.batches)
                                         : 0.0}});
  return rate;
}

// The physical reference: the same rows COPYed into an identical table.
double raw_copy_rate(const std::string& url, int64_t rows) {
  pqxx::connection c{url};
  {
    pqxx::nontransaction tx{c};
    tx.exec("DROP TABLE IF EXISTS events_copy");
    tx.exec("CREATE TABLE events_copy (LIKE events INCLUDING ALL)");
  }
  auto start = clk::now();
  pqxx::work tx{c};
  pqxx::stream_to copy{tx, "events_copy",
                       std::vector<std::string>{"position", "stream_id",
                                                "stream_version", "type",
                                                "schema_version", "payload"}};
  for (int64_t i = 0; i < rows; ++i) {
    auto ev = sample_event(i % 64, i);
    copy << std::make_tuple(i + 1, ev.stream, i / 64 + 1, ev.body.type,
                            ev.body.schema_version, ev.body.payload);
  }
  copy.complete();
  tx.commit();
  return static_cast<double>(rows) / seconds_since(start);
}

// Median time of a one-row write transaction's commit: the WAL flush that
// bounds every durable acknowledgement on this disk.
double commit_latency_s(const std::string& url) {
  pqxx::connection c{url};
  {
    pqxx::nontransaction tx{c};
    tx.exec("CREATE TABLE IF NOT EXISTS flush_probe (x int)");
  }
  std::vector<double> lat;
  for (int i = 0; i < 200; ++i) {
    auto t = clk::now();
    pqxx::work tx{c};
    tx.exec("INSERT INTO flush_probe VALUES (1)");
    tx.commit();
    lat.push_back(seconds_since(t));
  }
  return percentile(lat, 0.5);
}

// Fills a fresh log with `n` events of a valid history.
void fill(const std::string& url, int64_t n) {
  auto store = open_writer(url);
  append_request req;
  auto flush = [&] {
    auto r = store->append(req);
    if (!r) {
      std::cerr << render(r.error()) << "\n";
      std::exit(1);
    }
    req = {};
  };
  bench::make_history(n, 1000, [&](const domain_event& ev) {
    req.events.push_back(to_new_event(ev));
    if (req.events.size() == 10000)
      flush();
  });
  if (!req.events.empty())
    flush();
}

void replay(const std::string& url, int64_t n) {
  fill(url, n);
  {
    // Both reads below see a settled table: the first scan after a bulk
    // load would otherwise pay for setting hint bits.
    pqxx::connection c{url};
    pqxx::nontransaction tx{c};
    tx.exec("VACUUM (ANALYZE) events");
  }
  // Reference: the client receives the same rows through COPY TO STDOUT.
  double raw_secs;
  {
    pqxx::connection c{url};
    pqxx::read_transaction tx{c};
    auto start = clk::now();
    pqxx::stream_from rows{
        tx, "(SELECT position, stream_id, stream_version, type, "
            "schema_version, payload, (date_part('epoch', recorded_at) * "
            "1000000)::bigint FROM events ORDER BY position)"};
    std::string line;
    int64_t got = 0;
    while (rows.get_raw_line(line))
      ++got;
    rows.complete();
    raw_secs = seconds_since(start);
    if (got != n)
      std::cerr << "raw copy saw " << got << " rows, expected " << n << "\n";
  }
  auto reader =
      pg_event_store::open({url, lock_policy::reader, false, nullptr});
  if (!reader) {
    std::cerr << render(reader.error()) << "\n";
    std::exit(1);
  }
  // The replay as start-up runs it (decoding on the applying thread), and
  // the same with decoding on the reader thread (read_decoded),
  // alternately: the difference is measured in one run. cpu_s is the process's
  // CPU time (both of its threads), which a busy machine distorts less than
  // elapsed time.
  double raw = static_cast<double>(n) / raw_secs;
  auto run = [&](bool decode_on_reader) {
    state::cluster_state st;
    auto cpu0 = process_cpu_s();
    auto start = clk::now();
    read_options ro;
    caf::error err;
    if (decode_on_reader)
      err = (*reader)->read_decoded(
          ro, [&](recorded_event&& rec, caf::expected<domain_event>&& ev) {
            if (!ev)
              return std::move(ev.error());
            return state::apply(st, rec, *ev);
          });
    else
      err = (*reader)->read(
          ro, [&](recorded_event&& rec) { return state::apply(st, rec); });
    auto secs = seconds_since(start);
    auto cpu = process_cpu_s() - cpu0;
    if (err) {
      std::cerr << "replay failed: " << render(err) << "\n";
      std::exit(1);
    }
    double rate = static_cast<double>(n) / secs;
    emit({{"bench", "event_log"},
          {"metric", decode_on_reader ? "replay_into_state_decode_on_reader"
                                      : "replay_into_state"},
          {"value", rate},
          {"unit", "events/s"},
          {"events", n},
          {"seconds", secs},
          {"cpu_s", cpu},
          {"reference", "raw COPY (SELECT ...) TO STDOUT of the same rows"},
          {"reference_value", raw},
          {"ratio", rate / raw}});
  };
  for (int round = 0; round < 2; ++round) {
    run(false);
    run(true);
  }
}

} // namespace

int main(int argc, char** argv) {
  double secs = 5;
  int64_t replay_events = 1000000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--seconds")
      secs = std::stod(argv[i + 1]);
    else if (a == "--replay-events")
      replay_events = std::stoll(argv[i + 1]);
  }
  const char* server = std::getenv("DET_BENCH_PG_URL");
  if (server == nullptr) {
    std::cerr << "bench-event-log: set DET_BENCH_PG_URL (make bench does)\n";
    return 2;
  }
  single_caller(fresh_db(server, "bench_append_1"), 1, secs);
  single_caller(fresh_db(server, "bench_append_100"), 100, secs);
  auto url = fresh_db(server, "bench_group");
  auto gc = group_commit(url, 64, secs);
  // The store's own durable append of 64 events at a time, from one
  // caller with nothing to wait for: what 64 callers sharing each commit
  // can reach at most, whatever the appender does.
  auto one64 = single_caller(fresh_db(server, "bench_append_64"), 64, secs);
  emit({{"bench", "event_log"},
        {"metric", "group_commit_vs_one_caller_64_event_appends"},
        {"value", gc},
        {"unit", "events/s"},
        {"reference", "one caller appending 64 events at a time"},
        {"reference_value", one64},
        {"ratio", gc / one64}});
  auto raw = raw_copy_rate(url, 200000);
  emit({{"bench", "event_log"},
        {"metric", "group_commit_vs_raw_copy"},
        {"value", gc},
        {"unit", "events/s"},
        {"reference", "raw COPY of the same events into an identical table"},
        {"reference_value", raw},
        {"ratio", gc / raw}});
  // With C callers each waiting for its acknowledgement, at most C events
  // share one flush: C / flush latency is the ceiling for this workload.
  auto flush = commit_latency_s(url);
  emit({{"bench", "event_log"},
        {"metric", "group_commit_vs_flush_bound"},
        {"value", gc},
        {"unit", "events/s"},
        {"reference", "64 callers / median one-row commit latency"},
        {"commit_latency_ms", flush * 1000},
        {"reference_value", 64 / flush},
        {"ratio", gc / (64 / flush)}});
  replay(fresh_db(server, "bench_replay"), replay_events);
  return 0;
}
