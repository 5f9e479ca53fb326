#include "policy/heartbeat_monitor.hpp"

#include <gtest/gtest.h>

using det::policy::heartbeat_monitor;
using namespace std::chrono_literals;

namespace {

const heartbeat_monitor::clock::time_point monitor_t0{std::chrono::hours{1}};

} // namespace

TEST(heartbeat_monitor,
     expires_after_the_configured_number_of_missed_intervals) {
  heartbeat_monitor m{1s, 3, monitor_t0};
  EXPECT_FALSE(m.expired(monitor_t0));
  EXPECT_EQ(m.missed_count(monitor_t0 + 2999ms), 2);
  EXPECT_FALSE(m.expired(monitor_t0 + 2999ms));
  EXPECT_TRUE(m.expired(monitor_t0 + 3s));
  EXPECT_EQ(m.deadline(), monitor_t0 + 3s);
}

TEST(heartbeat_monitor, any_frame_restarts_the_count) {
  heartbeat_monitor m{1s, 3, monitor_t0};
  m.seen(monitor_t0 + 2500ms);
  EXPECT_EQ(m.missed_count(monitor_t0 + 3s), 0);
  EXPECT_FALSE(m.expired(monitor_t0 + 5400ms));
  EXPECT_TRUE(m.expired(monitor_t0 + 5500ms));
}

TEST(heartbeat_monitor, a_late_reading_of_an_older_time_does_not_move_it_back) {
  heartbeat_monitor m{1s, 2, monitor_t0};
  m.seen(monitor_t0 + 4s);
  m.seen(monitor_t0 + 1s);
  EXPECT_EQ(m.deadline(), monitor_t0 + 6s);
  EXPECT_EQ(m.missed_count(monitor_t0), 0);
}

TEST(heartbeat_monitor, a_new_interval_applies_to_the_current_silence) {
  heartbeat_monitor m{10s, 3, monitor_t0};
  EXPECT_FALSE(m.expired(monitor_t0 + 3s));
  m.set_interval(1s);
  EXPECT_TRUE(m.expired(monitor_t0 + 3s));
}

TEST(heartbeat_monitor, nonsense_settings_are_clamped_to_one) {
  heartbeat_monitor m{0s, 0, monitor_t0};
  EXPECT_EQ(m.missed_limit(), 1);
  EXPECT_GT(m.interval().count(), 0);
  EXPECT_TRUE(m.expired(monitor_t0 + 1s));
}
