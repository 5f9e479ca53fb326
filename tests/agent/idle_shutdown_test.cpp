// det-agent stops its idle instance while cut off from the master
// (agent/idle_shutdown.hpp): the pure watch with a fixed clock, and the
// monitor thread with an injected one.
#include "agent/idle_shutdown.hpp"
#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

using namespace det::agent;
using namespace std::chrono_literals;

namespace {

det::policy::timestamp at(int64_t s) {
  return det::policy::timestamp{} + std::chrono::seconds{1000000 + s};
}

// What the agent sees: connected or not, idle (no allocation) or not.
idle_observation seen(bool connected, bool idle) {
  idle_observation o;
  o.connected = connected;
  o.idle = idle;
  return o;
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
  EXPECT_FALSE(w.observe(seen(true, true), at(0)));
  EXPECT_FALSE(w.due_at()) << "connected: the master decides";
  EXPECT_FALSE(w.observe(seen(false, true), at(100)));
  ASSERT_TRUE(w.due_at());
  EXPECT_EQ(*w.due_at(), at(180));
  EXPECT_FALSE(w.observe(seen(false, true), at(179)));
  EXPECT_TRUE(w.observe(seen(false, true), at(180)));
}

// Idle long before the master went: the grace still applies.
TEST(agent_idle_shutdown, the_master_gone_a_moment_is_waited_out) {
  idle_shutdown_watch w{three_minutes()};
  EXPECT_FALSE(w.observe(seen(true, true), at(0)));
  EXPECT_FALSE(w.observe(seen(false, true), at(1000)));
  EXPECT_FALSE(w.observe(seen(false, true), at(1059)));
  // Reconnected within the grace: the clock of the outage starts again.
  EXPECT_FALSE(w.observe(seen(true, true), at(1059)));
  EXPECT_FALSE(w.observe(seen(false, true), at(1100)));
  EXPECT_FALSE(w.observe(seen(false, true), at(1159)));
  EXPECT_TRUE(w.observe(seen(false, true), at(1160)));
}

TEST(agent_idle_shutdown, a_running_trial_keeps_the_instance) {
  idle_shutdown_watch w{three_minutes()};
  EXPECT_FALSE(w.observe(seen(false, false), at(0)));
  EXPECT_FALSE(w.observe(seen(false, false), at(10000)));
  EXPECT_FALSE(w.due_at());
  // The trial ends during the outage: idle from then on.
  EXPECT_FALSE(w.observe(seen(false, true), at(10001)));
  EXPECT_FALSE(w.observe(seen(false, true), at(10180)));
  EXPECT_TRUE(w.observe(seen(false, true), at(10181)));
}

TEST(agent_idle_shutdown, a_zero_idle_period_turns_it_off) {
  idle_shutdown_watch w{det::policy::self_shutdown_config{}};
  EXPECT_FALSE(w.observe(seen(false, true), at(0)));
  EXPECT_FALSE(w.observe(seen(false, true), at(1000000)));
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
                              return seen(false, true);
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
                              return seen(false, true);
                            },
                            [] {}};
  }
  EXPECT_EQ(looks.load(), 0);
}

namespace {

// An agent whose trial ended while the master was away: nothing runs,
// exits wait for the master's acknowledgement.
idle_observation holding(std::vector<exit_report> exits) {
  idle_observation o;
  o.only_exits = true;
  o.exits = std::move(exits);
  return o;
}

det::policy::self_shutdown_config short_when_unreachable() {
  auto c = three_minutes();
  c.unreachable_idle = 60s;
  return c;
}

} // namespace

// With a recorder the exits do not keep the agent: at the due time (the
// 60 s unreachable period from the trial's end at 100, the master gone at
// 0) it asks for them to be written, and stops only after that.
TEST(agent_idle_shutdown, exits_are_written_into_the_tags_before_the_stop) {
  idle_shutdown_watch w{short_when_unreachable(), true};
  EXPECT_EQ(w.step(idle_observation{}, at(0)).what, idle_step::kind::wait);
  auto o = holding({{"7.1", 0, 123}, {"8.1", 137, 456}});
  EXPECT_EQ(w.step(o, at(100)).what, idle_step::kind::wait);
  EXPECT_EQ(*w.due_at(), at(160));
  EXPECT_EQ(w.step(o, at(159)).what, idle_step::kind::wait);
  auto s = w.step(o, at(160));
  ASSERT_EQ(s.what, idle_step::kind::record_exits);
  ASSERT_EQ(s.exits.size(), 2u);
  EXPECT_EQ(s.exits[1].allocation_id, "8.1");
  // Not written yet: asked again, never a stop.
  EXPECT_EQ(w.step(o, at(161)).what, idle_step::kind::record_exits);
  w.recorded(s.exits, true, at(161));
  EXPECT_EQ(w.step(o, at(161)).what, idle_step::kind::stop);
}

// A failed write backs off and is tried again; once the attempts are spent
// the agent stays (the exits are the master's to collect), and a master
// that is reachable again starts a fresh series.
TEST(agent_idle_shutdown, a_failed_tag_write_never_stops_the_instance) {
  det::policy::backoff_config retry;
  retry.initial = 10s;
  retry.multiplier = 2;
  retry.jitter = 0;
  retry.max_attempts = 3;
  idle_shutdown_watch w{short_when_unreachable(), true, retry};
  auto o = holding({{"7.1", 1, 123}});
  w.step(o, at(0));
  auto s = w.step(o, at(60));
  ASSERT_EQ(s.what, idle_step::kind::record_exits);
  w.recorded(s.exits, false, at(60));
  EXPECT_EQ(w.step(o, at(69)).what, idle_step::kind::wait);
  EXPECT_EQ(*w.due_at(), at(70));
  ASSERT_EQ(w.step(o, at(70)).what, idle_step::kind::record_exits);
  w.recorded(s.exits, false, at(70));
  EXPECT_EQ(w.step(o, at(89)).what, idle_step::kind::wait);
  ASSERT_EQ(w.step(o, at(90)).what, idle_step::kind::record_exits);
  w.recorded(s.exits, false, at(90));
  for (int64_t t : {91, 1000, 100000})
    EXPECT_EQ(w.step(o, at(t)).what, idle_step::kind::wait) << t;
  EXPECT_FALSE(w.due_at()) << "attempts spent: nothing more to do";
  // The master is back and gone again: a fresh series of attempts.
  auto back = o;
  back.connected = true;
  w.step(back, at(100001));
  EXPECT_EQ(w.step(o, at(100002)).what, idle_step::kind::wait);
  EXPECT_EQ(w.step(o, at(100062)).what, idle_step::kind::record_exits);
}

// Without a recorder (not a provisioned EC2 instance) an exit keeps the
// agent busy, as before; so do more exits than one instance's tags hold.
TEST(agent_idle_shutdown, exits_it_cannot_write_keep_the_instance) {
  idle_shutdown_watch none{short_when_unreachable(), false};
  auto o = holding({{"7.1", 0, 123}});
  for (int64_t t : {0, 1000, 100000})
    EXPECT_EQ(none.step(o, at(t)).what, idle_step::kind::wait);
  EXPECT_FALSE(none.due_at());
  idle_shutdown_watch full{short_when_unreachable(), true};
  std::vector<exit_report> many;
  for (int k = 0; k < 41; ++k)
    many.push_back({"9." + std::to_string(k), 0, 1});
  auto lots = holding(many);
  for (int64_t t : {0, 1000, 100000})
    EXPECT_EQ(full.step(lots, at(t)).what, idle_step::kind::wait);
}

// The monitor with a recorder that fails once: it writes, backs off by the
// injected clock (5 s a look), writes again, and fires only after the
// write succeeded.
TEST(agent_idle_shutdown, the_monitor_fires_only_after_the_exits_are_written) {
  std::atomic<int64_t> t{0};
  std::atomic<int> writes{0};
  std::atomic<int> fired{0};
  std::atomic<int> writes_at_fire{-1};
  std::promise<void> done;
  {
    idle_shutdown_monitor m{
        short_when_unreachable(),
        1ms,
        [] {
          return holding({{"7.1", 0, 123}});
        },
        [&] {
          if (fired++ == 0) {
            writes_at_fire = writes.load();
            done.set_value();
          }
        },
        [&] { return at(t.fetch_add(5)); },
        [&](const std::vector<exit_report>& exits) -> caf::error {
          EXPECT_EQ(exits.size(), 1u);
          if (writes++ == 0)
            return det::make_error(det::errc::remote_error, "throttled");
          return {};
        }};
    ASSERT_EQ(done.get_future().wait_for(10s), std::future_status::ready);
  }
  EXPECT_EQ(fired.load(), 1);
  EXPECT_EQ(writes_at_fire.load(), 2);
}
