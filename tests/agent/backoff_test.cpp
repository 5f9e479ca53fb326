#include "agent/reconnect_backoff.hpp"

#include <gtest/gtest.h>

using namespace det::agent;
using namespace std::chrono_literals;

TEST(reconnect_backoff, without_jitter_doubles_from_one_second_to_thirty) {
  reconnect_backoff b{[] { return 0.0; }};
  std::vector<std::chrono::milliseconds> got;
  for (int i = 0; i < 8; ++i)
    got.push_back(b.next_delay());
  EXPECT_EQ(got, (std::vector<std::chrono::milliseconds>{1s, 2s, 4s, 8s, 16s,
                                                         30s, 30s, 30s}));
}

TEST(reconnect_backoff, jitter_shortens_each_delay_by_at_most_half) {
  reconnect_backoff b{[] { return 0.999; }};
  auto first = b.next_delay();
  EXPECT_GE(first, 500ms);
  EXPECT_LT(first, 1s);
  for (int i = 0; i < 10; ++i)
    b.next_delay();
  auto capped = b.next_delay();
  EXPECT_GE(capped, 15s);
  EXPECT_LE(capped, 30s);
}

TEST(reconnect_backoff, reset_after_a_welcome_starts_again_at_one_second) {
  reconnect_backoff b{[] { return 0.0; }};
  b.next_delay();
  b.next_delay();
  b.next_delay();
  b.reset();
  EXPECT_EQ(b.failures(), 0);
  EXPECT_EQ(b.next_delay(), 1s);
}

TEST(reconnect_backoff, keeps_retrying_at_the_cap_after_many_failures) {
  reconnect_backoff b{[] { return 0.0; }};
  for (int i = 0; i < 1000; ++i)
    b.next_delay();
  EXPECT_EQ(b.next_delay(), 30s);
}
