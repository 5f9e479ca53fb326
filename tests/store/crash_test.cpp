// SIGKILL a process that appends through the group-commit appender with
// many concurrent callers, at random moments, many times. Afterwards every
// acknowledged append is in the log, positions run 1..N without a gap, and
// each stream's versions run 1..n without a repeat.

#include "messages/errc.hpp"
#include "store/pg_event_store.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/test_pg.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <random>
#include <sstream>

namespace det {
namespace {

struct ack {
  int64_t first, last;
  std::string stream;
  int64_t version; // stream version after the append
};

TEST(crash,
     acknowledged_appends_survive_sigkill_and_positions_stay_contiguous) {
  auto url = test::fresh_database("store_crash");
  std::mt19937 rng(20261122);
  std::vector<ack> acks;
  int lock_waits = 0;
  constexpr int rounds = 40;
  for (int round = 0; round < rounds; ++round) {
    test::child_process child{{DET_STORE_TOOL, "append-loop", url, "32"}};
    // Kill after a random number of acknowledgements (an awaited event,
    // not a sleep); the kill lands while many appends are in flight.
    auto kill_after = std::uniform_int_distribution<int>(1, 400)(rng);
    int seen = 0;
    while (seen < kill_after) {
      auto line = child.read_line();
      ASSERT_TRUE(line) << "append-loop stopped answering in round " << round;
      // The previous, killed writer's session may still hold the lock for a
      // moment: the new writer says so and waits for it.
      if (line->rfind("waiting: ", 0) == 0) {
        ++lock_waits;
        continue;
      }
      ASSERT_EQ(line->rfind("ack ", 0), 0u) << *line;
      std::istringstream in(line->substr(4));
      ack a;
      in >> a.first >> a.last >> a.stream >> a.version;
      acks.push_back(a);
      ++seen;
    }
    child.kill(SIGKILL);
    // Acknowledgements printed before the kill are still in the pipe.
    while (auto line = child.read_line(std::chrono::seconds{5})) {
      if (line->rfind("ack ", 0) != 0)
        continue;
      std::istringstream in(line->substr(4));
      ack a;
      in >> a.first >> a.last >> a.stream >> a.version;
      acks.push_back(a);
    }
    EXPECT_EQ(child.wait(), 128 + SIGKILL);
  }

  pg_store_options o;
  o.url = url;
  o.lock = lock_policy::reader;
  auto store = pg_event_store::open(o);
  ASSERT_TRUE(store) << render(store.error());
  int64_t expect_pos = 1;
  std::map<std::string, int64_t> versions;
  std::map<int64_t, std::pair<std::string, int64_t>> by_pos;
  auto err = (*store)->read({}, [&](recorded_event&& r) {
    EXPECT_EQ(r.position, expect_pos) << "gap or disorder in positions";
    expect_pos = r.position + 1;
    auto& v = versions[r.stream];
    EXPECT_EQ(r.stream_version, v + 1) << "stream " << r.stream;
    v = r.stream_version;
    by_pos[r.position] = {r.stream, r.stream_version};
    return caf::error{};
  });
  ASSERT_FALSE(err) << render(err);
  ASSERT_GT(acks.size(), static_cast<size_t>(rounds));
  for (const auto& a : acks) {
    auto i = by_pos.find(a.last);
    ASSERT_NE(i, by_pos.end())
        << "acknowledged position " << a.last << " is missing";
    EXPECT_EQ(i->second.first, a.stream);
    EXPECT_EQ(i->second.second, a.version);
    for (auto p = a.first; p <= a.last; ++p)
      EXPECT_EQ(by_pos[p].first, a.stream);
  }
  RecordProperty("acknowledged_appends", static_cast<int>(acks.size()));
  RecordProperty("events_in_log", static_cast<int>(expect_pos - 1));
  RecordProperty("lock_waits", lock_waits);
}

} // namespace
} // namespace det
