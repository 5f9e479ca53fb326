// det-replay: rebuild the cluster state from an event log and check it.
//
//   det-replay --db URL [--to POSITION] [--stream ID] [--verify-snapshots]
//              [--check] [--json]
//
// Exit status: 0 when every event decodes and applies, the invariants hold
// and every snapshot checked equals the rebuilt state; 1 otherwise; 2 on bad
// arguments.

#include "messages/errc.hpp"
#include "store/pg_event_store.hpp"
#include "store/replay.hpp"
#include "util/cli.hpp"

#include <cstdio>
#include <iostream>
#include <string>

using namespace det;

namespace {

void print_table(const replay::report& rep) {
  size_t width = 4;
  for (const auto& [type, n] : rep.counts_by_type)
    width = std::max(width, type.size());
  std::printf("%-*s  %10s\n", static_cast<int>(width), "TYPE", "EVENTS");
  for (const auto& [type, n] : rep.counts_by_type)
    std::printf("%-*s  %10lld\n", static_cast<int>(width), type.c_str(),
                static_cast<long long>(n));
  std::printf("%-*s  %10lld\n", static_cast<int>(width), "total",
              static_cast<long long>(rep.events));
  std::printf("\nlast position: %lld\n",
              static_cast<long long>(rep.last_position));
  std::printf("replayed in:   %.3f s (%.0f events/s)\n", rep.seconds,
              rep.seconds > 0 ? static_cast<double>(rep.events) / rep.seconds
                              : 0.0);
  for (const auto& s : rep.snapshots)
    std::printf("snapshot at %lld: %s%s%s\n",
                static_cast<long long>(s.position),
                s.matches ? "matches" : "MISMATCH",
                s.detail.empty() ? "" : ": ", s.detail.c_str());
  for (const auto& b : rep.broken_invariants)
    std::printf("invariant broken %s\n", b.c_str());
  if (!rep.error.empty())
    std::printf("error: %s\n", rep.error.c_str());
}

void print_json(const replay::report& rep) {
  nlohmann::json snaps = nlohmann::json::array();
  for (const auto& s : rep.snapshots)
    snaps.push_back({{"position", s.position},
                     {"matches", s.matches},
                     {"detail", s.detail}});
  nlohmann::json out{{"ok", rep.ok()},
                     {"events", rep.events},
                     {"last_position", rep.last_position},
                     {"counts_by_type", rep.counts_by_type},
                     {"snapshots", snaps},
                     {"broken_invariants", rep.broken_invariants},
                     {"seconds", rep.seconds}};
  if (!rep.error.empty())
    out["error"] = rep.error;
  std::cout << out.dump() << "\n";
}

} // namespace

int main(int argc, char** argv) {
  std::string url;
  replay::options opts;
  bool json = false;
  CLI::App app{"Reads the event log in PostgreSQL database URL, applies every "
               "event to the cluster state and prints the events per type "
               "and the last position.",
               "det-replay"};
  app.add_option("--db", url, "the event log's database")
      ->type_name("URL")
      ->envname("DET_DB_URL")
      ->required();
  app.add_option("--to", opts.to, "stop after this position")
      ->type_name("POSITION")
      ->check(cli::at_least(0));
  app.add_option("--stream", opts.stream,
                 "only this stream (decoded and counted, not applied)")
      ->type_name("ID");
  app.add_flag("--verify-snapshots", opts.verify_snapshots,
               "compare each stored snapshot with the state rebuilt from the "
               "events before it");
  app.add_flag("--check", opts.check_each,
               "check the state's invariants after every event");
  app.add_flag("--json", json, "one JSON object instead of a table");
  if (auto code =
          cli::parse_or_exit_code(app, argc, argv, std::cout, std::cerr))
    return *code;
  pg_store_options o;
  o.url = url;
  o.lock = lock_policy::reader;
  auto log = pg_event_store::open(o);
  if (!log) {
    std::cerr << "det-replay: " << render(log.error()) << "\n";
    return 1;
  }
  std::unique_ptr<pg_event_store> snaps;
  if (opts.verify_snapshots) {
    auto s = pg_event_store::open(o);
    if (!s) {
      std::cerr << "det-replay: " << render(s.error()) << "\n";
      return 1;
    }
    snaps = std::move(*s);
  }
  auto rep = replay::run(**log, snaps ? *snaps : **log, opts);
  if (json)
    print_json(rep);
  else
    print_table(rep);
  return rep.ok() ? 0 : 1;
}
