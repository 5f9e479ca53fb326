#include "util/backoff.hpp"

#include <gtest/gtest.h>

namespace det::util {
namespace {

TEST(backoff_formula, grows_by_the_multiplier_from_the_initial_delay) {
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1e9, 1, 0, 0.5), 100);
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1e9, 4, 0, 0.5), 800);
  EXPECT_DOUBLE_EQ(backoff_delay(100, 3, 1e9, 3, 0, 0.5), 900);
}

TEST(backoff_formula, stops_at_the_cap_even_for_a_huge_count) {
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1000, 5, 0, 0), 1000);
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1000, 100000, 0, 0), 1000);
}

TEST(backoff_formula, jitter_takes_off_its_share_times_the_draw) {
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1e9, 4, 0.5, 0.0), 800);
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1e9, 4, 0.5, 0.75), 500);
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1e9, 4, 1.0, 1.0), 0);
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1e9, 4, 1.0, 0.25), 600);
}

TEST(backoff_formula, out_of_range_inputs_are_clamped) {
  EXPECT_DOUBLE_EQ(backoff_delay(100, 0.5, 1e9, 3, 0, 0), 100)
      << "a multiplier below 1 does not shrink the delay";
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1e9, 0, 0, 0), 100);
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1e9, 1, 2.0, 1.0), 0);
  EXPECT_DOUBLE_EQ(backoff_delay(100, 2, 1e9, 1, 0.5, -1.0), 100);
}

} // namespace
} // namespace det::util
