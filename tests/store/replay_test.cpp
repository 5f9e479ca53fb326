#include "store/replay.hpp"

#include "messages/errc.hpp"
#include "store/memory_event_store.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

void put(event_store& s, const domain_event& ev) {
  auto r = s.append({{to_new_event(ev)}, {}});
  ASSERT_TRUE(r) << render(r.error());
}

class replay_run : public ::testing::Test {
protected:
  void SetUp() override {
    put(log, master_started{"c1", "h", 1, "0.1"});
    pool_configured pool;
    pool.pool = "default";
    put(log, pool);
    put(log, agent_connected{"a1", "default", 4, "cpu", ""});
    put(log, master_started{"c1", "h", 2, "0.1"});
  }
  memory_event_store log;
};

TEST_F(replay_run, counts_events_by_type_and_reports_the_last_position) {
  auto rep = replay::run(log, log, {});
  EXPECT_TRUE(rep.ok()) << rep.error;
  EXPECT_EQ(rep.events, 4);
  EXPECT_EQ(rep.last_position, 4);
  EXPECT_EQ(rep.counts_by_type["master_started"], 2);
  EXPECT_EQ(rep.counts_by_type["agent_connected"], 1);
}

TEST_F(replay_run, stops_at_the_requested_position) {
  replay::options o;
  o.to = 2;
  auto rep = replay::run(log, log, o);
  EXPECT_EQ(rep.events, 2);
  EXPECT_EQ(rep.last_position, 2);
}

TEST_F(replay_run, a_snapshot_equal_to_the_rebuilt_state_matches) {
  state::cluster_state st;
  std::ignore = log.read(
      {0, 3, {}}, [&](recorded_event&& r) { return state::apply(st, r); });
  ASSERT_FALSE(log.save_snapshot({3, 1, state::to_snapshot(st).dump(), 0}));
  replay::options o;
  o.verify_snapshots = true;
  auto rep = replay::run(log, log, o);
  ASSERT_EQ(rep.snapshots.size(), 1u);
  EXPECT_TRUE(rep.snapshots[0].matches) << rep.snapshots[0].detail;
  EXPECT_TRUE(rep.ok());
}

TEST_F(replay_run, a_snapshot_that_disagrees_with_the_events_is_a_mismatch) {
  state::cluster_state st;
  std::ignore = log.read(
      {0, 2, {}}, [&](recorded_event&& r) { return state::apply(st, r); });
  // State after position 2, stored as if it were the state after 3.
  auto j = state::to_snapshot(st);
  j["state"]["position"] = 3;
  ASSERT_FALSE(log.save_snapshot({3, 1, j.dump(), 0}));
  replay::options o;
  o.verify_snapshots = true;
  auto rep = replay::run(log, log, o);
  ASSERT_EQ(rep.snapshots.size(), 1u);
  EXPECT_FALSE(rep.snapshots[0].matches);
  EXPECT_NE(rep.snapshots[0].detail.find("differs"), std::string::npos)
      << rep.snapshots[0].detail;
  EXPECT_FALSE(rep.ok());
}

TEST_F(replay_run, an_event_with_a_bad_payload_stops_replay_and_names_it) {
  ASSERT_TRUE(log.append(
      {{{"agent/a2", {"agent_connected", 2, R"({"agent_id":"a2"})"}}}, {}}));
  put(log, master_started{"c1", "h", 3, "0.1"});
  auto rep = replay::run(log, log, {});
  EXPECT_FALSE(rep.ok());
  EXPECT_EQ(rep.last_position, 4);
  EXPECT_NE(rep.error.find("position 5"), std::string::npos) << rep.error;
  EXPECT_NE(rep.error.find("agent_connected"), std::string::npos) << rep.error;
}

TEST(first_difference, names_the_path_where_documents_differ) {
  auto a = nlohmann::json::parse(R"({"x":{"y":[1,2,3]},"z":1})");
  auto b = nlohmann::json::parse(R"({"x":{"y":[1,2,4]},"z":1})");
  EXPECT_EQ(replay::first_difference(a, b), "/x/y/2");
  EXPECT_EQ(replay::first_difference(a, a), "");
}

} // namespace
} // namespace det
