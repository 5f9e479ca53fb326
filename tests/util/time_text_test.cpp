#include "util/time_text.hpp"

#include <gtest/gtest.h>

using namespace det::util;

TEST(time_text, six_fraction_digits_always) {
  EXPECT_EQ(format_rfc3339(2'051'301'600'000'000),
            "2035-01-01T22:00:00.000000Z");
  EXPECT_EQ(format_rfc3339(0), "");
}

TEST(time_text, trimmed_as_upstreams_gateway_writes_a_timestamp) {
  constexpr int64_t at = 2'051'301'600'000'000; // 2035-01-01T22:00:00Z
  EXPECT_EQ(format_rfc3339_trimmed(at), "2035-01-01T22:00:00Z");
  EXPECT_EQ(format_rfc3339_trimmed(at + 120'000), "2035-01-01T22:00:00.120Z");
  EXPECT_EQ(format_rfc3339_trimmed(at + 123'456),
            "2035-01-01T22:00:00.123456Z");
  EXPECT_EQ(format_rfc3339_trimmed(at + 100), "2035-01-01T22:00:00.000100Z");
  EXPECT_EQ(format_rfc3339_trimmed(0), "");
  EXPECT_EQ(parse_rfc3339(format_rfc3339_trimmed(at + 120'000)), at + 120'000);
}
