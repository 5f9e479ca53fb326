// det-replay: rebuild the cluster state from an event log and check it.
//
//   det-replay --db URL [--to POSITION] [--stream ID] [--verify-snapshots]
//              [--check] [--json]
//
// Exit status: 0 when every event decodes and applies, the invariants hold
// and every snapshot checked equals the rebuilt state; 1 otherwise; 2 on bad
// arguments.

#include "cmd/det_replay/replay.hpp"
#include "messages/errc.hpp"
#include "store/pg_event_store.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

using namespace det;

namespace {

const char* usage =
    "usage: det-replay --db URL [--to POSITION] [--stream ID]\n"
    "                  [--verify-snapshots] [--check] [--json]\n"
    "\n"
    "Reads the event log in PostgreSQL database URL, applies every event to\n"
    "the cluster state and prints the events per type and the last position.\n"
    "  --to POSITION       stop after this position\n"
    "  --stream ID         only this stream (decoded and counted, not "
    "applied)\n"
    "  --verify-snapshots  compare each stored snapshot with the state "
    "rebuilt\n"
    "                      from the events before it\n"
    "  --check             check the state's invariants after every event\n"
    "  --json              one JSON object instead of a table\n"
    "The URL may also come from DET_DB_URL.\n";

[[noreturn]] void bad_args(const std::string& why) {
  std::cerr << "det-replay: " << why << "\n" << usage;
  std::exit(2);
}

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

int64_t parse_position(const std::string& s) {
  try {
    size_t used = 0;
    auto v = std::stoll(s, &used);
    if (used == s.size() && v >= 0)
      return v;
  } catch (const std::exception&) {
  }
  bad_args("--to: expected a position (an integer >= 0), got '" + s + "'");
}

} // namespace

int main(int argc, char** argv) {
  std::string url;
  if (const char* env = std::getenv("DET_DB_URL"))
    url = env;
  replay::options opts;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        bad_args(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << usage;
      return 0;
    } else if (a == "--db") {
      url = value();
    } else if (a == "--to") {
      opts.to = parse_position(value());
    } else if (a == "--stream") {
      opts.stream = value();
    } else if (a == "--verify-snapshots") {
      opts.verify_snapshots = true;
    } else if (a == "--check") {
      opts.check_each = true;
    } else if (a == "--json") {
      json = true;
    } else {
      bad_args("unknown argument '" + a + "'");
    }
  }
  if (url.empty())
    bad_args("--db URL is required");
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
