#include "policy/idle_self_shutdown.hpp"

#include <gtest/gtest.h>

using namespace det::policy;
using namespace std::chrono_literals;

namespace {

timestamp at_s(int s) {
  return timestamp{} + std::chrono::seconds{s};
}

self_shutdown_config three_minutes() {
  self_shutdown_config c;
  c.max_idle = 180s;
  c.grace = 60s;
  return c;
}

} // namespace

TEST(idle_self_shutdown,
     an_idle_agent_cut_off_from_the_master_stops_after_the_idle_period) {
  self_shutdown_input in{at_s(0), at_s(100), at_s(179)};
  EXPECT_FALSE(should_self_shutdown(in, three_minutes()));
  in.now = at_s(180);
  EXPECT_TRUE(should_self_shutdown(in, three_minutes()));
  EXPECT_EQ(self_shutdown_at(in, three_minutes()), at_s(180));
}

TEST(idle_self_shutdown, a_short_disconnection_waits_for_the_grace) {
  // Idle for an hour, the master gone for 30 s: a restart, not an outage.
  self_shutdown_input in{at_s(0), at_s(3600), at_s(3630)};
  EXPECT_FALSE(should_self_shutdown(in, three_minutes()));
  EXPECT_EQ(self_shutdown_at(in, three_minutes()), at_s(3660));
}

TEST(idle_self_shutdown,
     busy_or_connected_agents_and_a_rule_that_is_off_never_stop) {
  self_shutdown_input busy{std::nullopt, at_s(0), at_s(99999)};
  EXPECT_FALSE(should_self_shutdown(busy, three_minutes()));
  self_shutdown_input connected{at_s(0), std::nullopt, at_s(99999)};
  EXPECT_FALSE(should_self_shutdown(connected, three_minutes()));
  self_shutdown_input idle_cut{at_s(0), at_s(0), at_s(99999)};
  EXPECT_FALSE(should_self_shutdown(idle_cut, self_shutdown_config{}));
  EXPECT_FALSE(self_shutdown_at(idle_cut, self_shutdown_config{}));
}

// While the master is unreachable the pool's shorter period applies; a
// longer one (or none) leaves max_idle.
TEST(idle_self_shutdown, the_unreachable_period_shortens_the_idle_period) {
  auto c = three_minutes();
  c.unreachable_idle = 60s;
  EXPECT_EQ(self_shutdown_idle_period(c), 60s);
  self_shutdown_input in{at_s(1000), at_s(900), at_s(1059)};
  EXPECT_FALSE(should_self_shutdown(in, c));
  EXPECT_EQ(self_shutdown_at(in, c), at_s(1060));
  c.unreachable_idle = 600s;
  EXPECT_EQ(self_shutdown_idle_period(c), 180s);
  c.unreachable_idle = 0s;
  EXPECT_EQ(self_shutdown_idle_period(c), 180s);
  // The rule stays off with max_idle zero, whatever the shorter period.
  self_shutdown_config off;
  off.unreachable_idle = 60s;
  EXPECT_FALSE(self_shutdown_at(in, off));
}

TEST(idle_self_shutdown, exits_are_written_before_the_stop_or_kept) {
  EXPECT_EQ(next_self_stop_step(0, false), self_stop_step::stop);
  EXPECT_EQ(next_self_stop_step(0, true), self_stop_step::stop);
  EXPECT_EQ(next_self_stop_step(2, true), self_stop_step::record_exits);
  EXPECT_EQ(next_self_stop_step(2, false), self_stop_step::stay);
}
