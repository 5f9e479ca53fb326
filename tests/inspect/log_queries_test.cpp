// det-inspect's event-log queries over the in-memory store: filters,
// ranges, the tail, and states at past positions.

#include "inspect/log_queries.hpp"
#include "messages/errc.hpp"
#include "store/memory_event_store.hpp"
#include "store/recovery.hpp"

#include <gtest/gtest.h>

using namespace det;

namespace {

/// pool_configured, then agents a1..a5 connecting: positions 1..6.
struct log_fixture : ::testing::Test {
  memory_event_store log;
  void SetUp() override {
    pool_configured p;
    p.pool = "default";
    put(p);
    for (int i = 1; i <= 5; ++i) {
      agent_connected a;
      a.agent_id = "a" + std::to_string(i);
      a.pool = "default";
      a.slots = 1;
      a.at_us = 1800000000000000;
      put(a);
    }
  }
  void put(const domain_event& ev) {
    append_request r;
    r.events.push_back(to_new_event(ev));
    ASSERT_TRUE(log.append(r));
  }
  std::vector<int64_t> positions(const inspection::event_filter& f) {
    auto j = inspection::query_events(log, f);
    EXPECT_TRUE(j) << render(j.error());
    std::vector<int64_t> out;
    if (j)
      for (const auto& e : (*j)["events"])
        out.push_back(e["position"].get<int64_t>());
    return out;
  }
};

} // namespace

TEST_F(log_fixture, the_default_is_the_tail_of_the_log) {
  inspection::event_filter f;
  f.limit = 2;
  EXPECT_EQ(positions(f), (std::vector<int64_t>{5, 6}));
  f.type = "agent_connected";
  f.limit = 3;
  EXPECT_EQ(positions(f), (std::vector<int64_t>{4, 5, 6}));
}

TEST_F(log_fixture, ranges_streams_and_types_filter_events) {
  inspection::event_filter f;
  f.from = 2;
  f.to = 3;
  EXPECT_EQ(positions(f), (std::vector<int64_t>{2, 3}));
  f = {};
  f.from = 1;
  f.stream = "agent/a3";
  EXPECT_EQ(positions(f), (std::vector<int64_t>{4}));
  f = {};
  f.from = 1;
  f.type = "pool_configured";
  EXPECT_EQ(positions(f), (std::vector<int64_t>{1}));
  f = {};
  f.from = 2;
  f.limit = 2;
  auto j = inspection::query_events(log, f);
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["events"].size(), 2u);
  EXPECT_TRUE((*j)["truncated"].get<bool>());
  EXPECT_EQ((*j)["last_position"], 6);
  EXPECT_EQ((*j)["events"][0]["type"], "agent_connected");
  EXPECT_EQ((*j)["events"][0]["payload"]["agent_id"], "a1");
}

TEST_F(log_fixture, impossible_ranges_name_the_field) {
  inspection::event_filter f;
  f.from = 5;
  f.to = 2;
  auto j = inspection::query_events(log, f);
  ASSERT_FALSE(j);
  EXPECT_NE(render(j.error()).find("to: 2 is before from: 5"),
            std::string::npos);
  f = {};
  f.limit = 0;
  j = inspection::query_events(log, f);
  ASSERT_FALSE(j);
  EXPECT_NE(render(j.error()).find("limit"), std::string::npos);
}

TEST_F(log_fixture, state_at_a_position_holds_only_the_events_before_it) {
  auto st = inspection::state_at(log, 3);
  ASSERT_TRUE(st) << render(st.error());
  EXPECT_EQ(st->position, 3);
  EXPECT_EQ(st->agents.size(), 2u);
  auto empty = inspection::state_at(log, 0);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->pools.empty());
}

TEST_F(log_fixture, state_at_uses_a_snapshot_before_the_position_only) {
  auto at4 = inspection::state_at(log, 4);
  ASSERT_TRUE(at4);
  ASSERT_FALSE(save_snapshot(log, *at4));
  auto at3 = inspection::state_at(log, 3);
  ASSERT_TRUE(at3);
  EXPECT_EQ(at3->agents.size(), 2u);
  auto at6 = inspection::state_at(log, 6);
  ASSERT_TRUE(at6);
  EXPECT_EQ(at6->agents.size(), 5u);
}

TEST_F(log_fixture, positions_past_the_end_or_beyond_the_bound_are_refused) {
  auto st = inspection::state_at(log, 7);
  ASSERT_FALSE(st);
  EXPECT_NE(render(st.error())
                .find("position 7 is past the end of the log "
                      "(last position 6)"),
            std::string::npos);
  st = inspection::state_at(log, 6, 3);
  ASSERT_FALSE(st);
  EXPECT_NE(render(st.error()).find("the limit is 3"), std::string::npos);
  EXPECT_FALSE(inspection::state_at(log, -1));
}
