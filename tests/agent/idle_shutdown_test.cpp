// det-agent stops its idle instance while cut off from the master
// (agent/idle_shutdown.hpp): the pure watch with a fixed clock, and the
// monitor thread with an injected one.
#include "agent/idle_shutdown.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

using namespace det::agent;
using namespace std::chrono_literals;

namespace {

det::policy::timestamp at(int64_t s) {
  return det::policy::timestamp{} + std::chrono::seconds{1000000 + s};
}

det::policy::self_shutdown_config three_minutes() {
  det::policy::self_shutdown_config c;
  c.max_idle = 180s;
  c.grace = 60s;
  return c;
}

} // namespace

// Idle from 0, the master gone at 100: due at max(0 + 180, 100 + 60).
TEST(agent_idle_shutdown, an_idle_agent_cut_off_stops_after_its_idle_period) {
  idle_shutdown_watch w{three_minutes()};
  EXPECT_FALSE(w.observe({true, true}, at(0)));
  EXPECT_FALSE(w.due_at()) << "connected: the master decides";
  EXPECT_FALSE(w.observe({false, true}, at(100)));
  ASSERT_TRUE(w.due_at());
  EXPECT_EQ(*w.due_at(), at(180));
  EXPECT_FALSE(w.observe({false, true}, at(179)));
  EXPECT_TRUE(w.observe({false, true}, at(180)));
}

// Idle long before the master went: the grace still applies.
TEST(agent_idle_shutdown, the_master_gone_a_moment_is_waited_out) {
  idle_shutdown_watch w{three_minutes()};
  EXPECT_FALSE(w.observe({true, true}, at(0)));
  EXPECT_FALSE(w.observe({false, true}, at(1000)));
  EXPECT_FALSE(w.observe({false, true}, at(1059)));
  // Reconnected within the grace: the clock of the outage starts again.
  EXPECT_FALSE(w.observe({true, true}, at(1059)));
  EXPECT_FALSE(w.observe({false, true}, at(1100)));
  EXPECT_FALSE(w.observe({false, true}, at(1159)));
  EXPECT_TRUE(w.observe({false, true}, at(1160)));
}

TEST(agent_idle_shutdown, a_running_trial_keeps_the_instance) {
  idle_shutdown_watch w{three_minutes()};
  EXPECT_FALSE(w.observe({false, false}, at(0)));
  EXPECT_FALSE(w.observe({false, false}, at(10000)));
  EXPECT_FALSE(w.due_at());
  // The trial ends during the outage: idle from then on.
  EXPECT_FALSE(w.observe({false, true}, at(10001)));
  EXPECT_FALSE(w.observe({false, true}, at(10180)));
  EXPECT_TRUE(w.observe({false, true}, at(10181)));
}

TEST(agent_idle_shutdown, a_zero_idle_period_turns_it_off) {
  idle_shutdown_watch w{det::policy::self_shutdown_config{}};
  EXPECT_FALSE(w.observe({false, true}, at(0)));
  EXPECT_FALSE(w.observe({false, true}, at(1000000)));
  EXPECT_FALSE(w.due_at());
}

// The monitor polls the agent on its own thread, with a clock that moves
// 30 s per look: idle and cut off from the first look, it fires once the
// idle period has passed by that clock, and only once.
TEST(agent_idle_shutdown, the_monitor_fires_once_when_due) {
  std::atomic<int64_t> t{0};
  std::atomic<int> looks{0};
  std::atomic<int> fired{0};
  std::promise<int64_t> when;
  {
    idle_shutdown_monitor m{three_minutes(), 1ms,
                            [&] {
                              ++looks;
                              return idle_observation{false, true};
                            },
                            [&] {
                              if (fired++ == 0)
                                when.set_value(t.load() - 30); // last read
                            },
                            [&] { return at(t.fetch_add(30)); }};
    auto f = when.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(f.get(), 180);
  }
  EXPECT_EQ(fired.load(), 1);
  EXPECT_EQ(looks.load(), 7); // at 0, 30, ..., 180
}

TEST(agent_idle_shutdown, the_monitor_of_a_rule_turned_off_never_looks) {
  std::atomic<int> looks{0};
  {
    idle_shutdown_monitor m{det::policy::self_shutdown_config{}, 1ms,
                            [&] {
                              ++looks;
                              return idle_observation{false, true};
                            },
                            [] {}};
  }
  EXPECT_EQ(looks.load(), 0);
}
