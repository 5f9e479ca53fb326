#include "policy/backoff.hpp"

#include <gtest/gtest.h>

namespace det::policy {
namespace {

using namespace std::chrono_literals;

const timestamp backoff_t0 = timestamp{} + 1000h;

backoff_config plain(double jitter = 0) {
  backoff_config c;
  c.initial = 1s;
  c.multiplier = 2;
  c.max_delay = 60s;
  c.jitter = jitter;
  return c;
}

struct delay_case {
  const char* name;
  backoff_config config;
  int failure;
  double u;
  duration expected;
};

class backoff_delays : public ::testing::TestWithParam<delay_case> {};

TEST_P(backoff_delays, grow_exponentially_up_to_the_cap_less_the_jitter) {
  const auto& c = GetParam();
  EXPECT_EQ(backoff_delay(c.config, c.failure, c.u), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    table, backoff_delays,
    ::testing::Values(
        delay_case{"first_failure_waits_the_initial_delay", plain(), 1, 0.7,
                   1s},
        delay_case{"each_failure_doubles_it", plain(), 4, 0.7, 8s},
        delay_case{"the_cap_holds", plain(), 10, 0.7, 60s},
        delay_case{"a_huge_count_does_not_overflow", plain(), 100000, 0.7, 60s},
        delay_case{"half_jitter_takes_off_up_to_half", plain(0.5), 4, 0.75, 5s},
        delay_case{"half_jitter_with_zero_draw_is_the_full_delay", plain(0.5),
                   4, 0.0, 8s},
        delay_case{"full_jitter_can_retry_at_once", plain(1.0), 3, 1.0, 0s}),
    [](const auto& tc) { return std::string{tc.param.name}; });

TEST(backoff, blocks_attempts_until_the_delay_passed) {
  auto s = after_failure({}, plain(), backoff_t0, 0.3);
  EXPECT_FALSE(may_attempt(s, backoff_t0));
  EXPECT_FALSE(may_attempt(s, backoff_t0 + 999ms));
  EXPECT_TRUE(may_attempt(s, backoff_t0 + 1s));
  s = after_failure(s, plain(), backoff_t0 + 1s, 0.3);
  EXPECT_EQ(*s.retry_at, backoff_t0 + 3s);
}

TEST(backoff, gives_up_after_max_attempts) {
  auto c = plain();
  c.max_attempts = 3;
  backoff_state s;
  for (int i = 0; i < 2; ++i)
    s = after_failure(s, c, backoff_t0 + i * 10s, 0.5);
  EXPECT_FALSE(s.gave_up);
  s = after_failure(s, c, backoff_t0 + 30s, 0.5);
  EXPECT_TRUE(s.gave_up);
  EXPECT_FALSE(may_attempt(s, backoff_t0 + 24h));
}

TEST(backoff, gives_up_when_the_time_budget_is_spent) {
  auto c = plain();
  c.max_elapsed = 5min;
  auto s = after_failure({}, c, backoff_t0, 0.5);
  s = after_failure(s, c, backoff_t0 + 4min, 0.5);
  EXPECT_FALSE(s.gave_up);
  s = after_failure(s, c, backoff_t0 + 5min, 0.5);
  EXPECT_TRUE(s.gave_up);
}

TEST(backoff, a_success_starts_a_fresh_series) {
  auto s = after_failure(after_failure({}, plain(), backoff_t0, 0), plain(),
                         backoff_t0 + 1s, 0);
  EXPECT_EQ(s.failures, 2);
  s = after_success(s);
  EXPECT_TRUE(may_attempt(s, backoff_t0));
  EXPECT_EQ(after_failure(s, plain(), backoff_t0 + 2s, 0).retry_at,
            backoff_t0 + 3s);
}

TEST(backoff, a_failure_long_after_the_last_starts_a_fresh_series) {
  auto c = plain();
  c.max_attempts = 2;
  auto s = after_failure({}, c, backoff_t0, 0);
  s = after_failure(s, c, backoff_t0 + 2h, 0);
  EXPECT_FALSE(s.gave_up);
  EXPECT_EQ(s.failures, 1);
}

TEST(backoff, jitter_spreads_retries_of_many_callers) {
  rng r{3};
  std::set<duration::rep> distinct;
  for (int i = 0; i < 50; ++i)
    distinct.insert(after_failure({}, plain(0.5), backoff_t0, r)
                        .retry_at->time_since_epoch()
                        .count());
  EXPECT_GT(distinct.size(), 40u);
}

TEST(backoff, state_round_trips_through_json) {
  auto c = plain();
  c.max_attempts = 2;
  auto s = after_failure({}, c, backoff_t0, 0.25);
  EXPECT_EQ(backoff_from_json(to_json(s)), s);
  s = after_failure(s, c, backoff_t0 + 1s, 0.25);
  EXPECT_EQ(backoff_from_json(nlohmann::json::parse(to_json(s).dump())), s);
  EXPECT_FALSE(backoff_from_json(nlohmann::json{{"failures", "x"}}));
}

} // namespace
} // namespace det::policy
