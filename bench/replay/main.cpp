// bench-replay: master start-up time (recover(): newest snapshot + the
// events after it, through state/) from a log of N events, with no
// snapshot and with a recent one (10,000 events before the end). One JSON
// line per result. Database: DET_BENCH_PG_URL (a server URL).
//
//   bench-replay [--events N]

#include "bench/support/history.hpp"
#include "messages/errc.hpp"
#include "store/pg_event_store.hpp"
#include "store/recovery.hpp"

#include <pqxx/pqxx>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>

using namespace det;
using clk = std::chrono::steady_clock;

namespace {

[[noreturn]] void die(const caf::error& err) {
  std::cerr << "bench-replay: " << render(err) << "\n";
  std::exit(1);
}

double timed_recover(event_store& log, bool use_snapshot,
                     recovery_report& rep) {
  auto start = clk::now();
  auto st = recover(log, use_snapshot, &rep);
  if (!st)
    die(st.error());
  return std::chrono::duration<double>(clk::now() - start).count();
}

} // namespace

int main(int argc, char** argv) {
  int64_t n = 1000000;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string{argv[i]} == "--events")
      n = std::stoll(argv[i + 1]);
  const char* server = std::getenv("DET_BENCH_PG_URL");
  if (server == nullptr) {
    std::cerr << "bench-replay: set DET_BENCH_PG_URL (make bench does)\n";
    return 2;
  }
  std::string url{server};
  {
    pqxx::connection c{url};
    pqxx::nontransaction tx{c};
    tx.exec("DROP DATABASE IF EXISTS bench_startup WITH (FORCE)");
    tx.exec("CREATE DATABASE bench_startup");
  }
  url = url.substr(0, url.rfind('/') + 1) + "bench_startup";
  auto opened = pg_event_store::open({url, lock_policy::wait, true, nullptr});
  if (!opened)
    die(opened.error());
  auto& log = **opened;
  // The history, with a snapshot taken 10,000 events before its end.
  state::cluster_state st;
  append_request req;
  int64_t pos = 0;
  auto flush = [&] {
    auto r = log.append(req);
    if (!r)
      die(r.error());
    req = {};
  };
  bench::make_history(n, 1000, [&](const domain_event& ev) {
    req.events.push_back(to_new_event(ev));
    recorded_event meta;
    meta.position = ++pos;
    if (auto err = state::apply(st, meta, ev))
      die(err);
    if (pos == n - 10000) {
      flush();
      if (auto err = save_snapshot(log, st))
        die(err);
    }
    if (req.events.size() == 10000)
      flush();
  });
  if (!req.events.empty())
    flush();
  {
    // Start-up reads a settled table, as a restarted master would.
    pqxx::connection c{url};
    pqxx::nontransaction tx{c};
    tx.exec("VACUUM (ANALYZE) events");
  }
  {
    // What a snapshot costs the master's thread: the copy it makes there,
    // against rendering the JSON (done on a short-lived actor of its own).
    auto t0 = std::chrono::steady_clock::now();
    auto copy = std::make_shared<const state::cluster_state>(st);
    auto t1 = std::chrono::steady_clock::now();
    auto text = state::to_snapshot(*copy).dump();
    auto t2 = std::chrono::steady_clock::now();
    auto ms = [](auto a, auto b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    std::cout << nlohmann::json{{"bench", "replay"},
                                {"metric", "snapshot_stall_on_master"},
                                {"value", ms(t0, t1)},
                                {"unit", "ms"},
                                {"snapshot_bytes", text.size()},
                                {"reference", "snapshot_render"},
                                {"reference_ms", ms(t1, t2)},
                                {"ratio", ms(t0, t1) / ms(t1, t2)}}
                     .dump()
              << std::endl;
  }
  recovery_report full, snap;
  auto t_full = timed_recover(log, false, full);
  auto t_snap = timed_recover(log, true, snap);
  std::cout << nlohmann::json{{"bench", "replay"},
                              {"metric", "startup_without_snapshot"},
                              {"value", t_full},
                              {"unit", "s"},
                              {"events", full.events_replayed}}
                   .dump()
            << "\n"
            << nlohmann::json{{"bench", "replay"},
                              {"metric", "startup_with_recent_snapshot"},
                              {"value", t_snap},
                              {"unit", "s"},
                              {"snapshot_position", snap.snapshot_position},
                              {"events_after_snapshot", snap.events_replayed},
                              {"reference", "startup_without_snapshot"},
                              {"ratio", t_snap / t_full}}
                   .dump()
            << std::endl;
  return 0;
}
