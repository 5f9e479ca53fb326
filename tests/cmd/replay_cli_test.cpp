// det-replay as a user runs it, against a log in the test PostgreSQL.

#include "messages/errc.hpp"
#include "messages/events.hpp"
#include "state/cluster_state.hpp"
#include "store/pg_event_store.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/test_pg.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace det {
namespace {

struct run_result {
  int status;
  std::string out;
};

run_result run(std::vector<std::string> args) {
  args.insert(args.begin(), DET_REPLAY_BIN);
  test::child_process p{args};
  std::string out;
  while (auto line = p.read_line())
    out += *line + "\n";
  return {p.wait(), out};
}

class replay_cli : public ::testing::Test {
protected:
  void SetUp() override {
    url = test::fresh_database("replay_cli");
    auto s = pg_event_store::open({url, lock_policy::wait, true, nullptr});
    ASSERT_TRUE(s) << render(s.error());
    store = std::move(*s);
    pool_configured pool;
    pool.pool = "default";
    put(pool);
    for (int i = 0; i < 5; ++i)
      put(agent_connected{"a" + std::to_string(i), "default", 8, "cpu", ""});
    put(master_started{"c1", "h", 1, "0.1"});
  }
  void put(const domain_event& ev) {
    ASSERT_TRUE(store->append({{to_new_event(ev)}, {}}));
  }
  std::string url;
  std::unique_ptr<pg_event_store> store;
};

TEST_F(replay_cli, prints_counts_per_type_and_the_last_position) {
  auto r = run({"--db", url});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("agent_connected"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("last position: 7"), std::string::npos) << r.out;
}

TEST_F(replay_cli, json_output_verifies_snapshots_and_fails_on_a_mismatch) {
  state::cluster_state st;
  ASSERT_FALSE(store->read(
      {0, 4, {}}, [&](recorded_event&& rec) { return state::apply(st, rec); }));
  ASSERT_FALSE(store->save_snapshot({4, 1, state::to_snapshot(st).dump(), 0}));
  auto good = run({"--db", url, "--verify-snapshots", "--json"});
  EXPECT_EQ(good.status, 0) << good.out;
  auto j = nlohmann::json::parse(good.out);
  EXPECT_EQ(j["events"], 7);
  EXPECT_EQ(j["snapshots"][0]["matches"], true);
  // A snapshot claiming position 5 with the state of 4 is caught.
  auto wrong = state::to_snapshot(st);
  wrong["state"]["position"] = 5;
  ASSERT_FALSE(store->save_snapshot({5, 1, wrong.dump(), 0}));
  auto bad = run({"--db", url, "--verify-snapshots", "--json"});
  EXPECT_EQ(bad.status, 1) << bad.out;
  auto jb = nlohmann::json::parse(bad.out);
  EXPECT_EQ(jb["ok"], false);
  EXPECT_EQ(jb["snapshots"][1]["matches"], false);
}

TEST_F(replay_cli, an_unknown_event_type_fails_with_its_position) {
  ASSERT_TRUE(store->append({{{"x/1", {"mystery_event", 1, "{}"}}}, {}}));
  auto r = run({"--db", url});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("position 8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mystery_event"), std::string::npos) << r.out;
}

TEST_F(replay_cli, to_and_stream_limit_what_is_read) {
  auto r = run({"--db", url, "--to", "3", "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["last_position"], 3);
  auto s = run({"--db", url, "--stream", "agent/a2", "--json"});
  auto js = nlohmann::json::parse(s.out);
  EXPECT_EQ(js["events"], 1);
  EXPECT_EQ(js["last_position"], 4);
}

TEST_F(replay_cli, bad_arguments_exit_2_with_a_reason) {
  auto r = run({"--db", url, "--to", "minus-one"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(run({}).status, 2);
}

} // namespace
} // namespace det
