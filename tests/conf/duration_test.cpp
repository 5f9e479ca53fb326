#include "conf/duration.hpp"

#include <gtest/gtest.h>

using namespace det::conf;
using namespace std::chrono_literals;

namespace {

struct good_case {
  const char* text;
  std::chrono::milliseconds want;
};

TEST(duration, go_style_durations_parse_to_milliseconds) {
  const good_case cases[] = {
      {"5m", 5min},     {"30s", 30s},
      {"1h", 1h},       {"1m30s", 90s},
      {"1h30m", 90min}, {"1.5h", 90min},
      {"250ms", 250ms}, {"0", 0ms},
      {"0s", 0ms},      {"2h45m10s", 2h + 45min + 10s},
      {"1500us", 1ms},  {"0.5s", 500ms},
  };
  for (const auto& c : cases) {
    auto got = parse_duration(c.text);
    ASSERT_TRUE(got) << c.text << ": " << det::render(got.error());
    EXPECT_EQ(*got, c.want) << c.text;
  }
}

TEST(duration, malformed_durations_are_refused_with_the_reason) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "empty"},
      {"5", "missing unit"},
      {"5d", "unknown unit 'd'"},
      {"m", "expected a duration"},
      {"1..5s", "malformed"},
      {"five minutes", "expected a duration"},
  };
  for (const auto& [text, why] : cases) {
    auto got = parse_duration(text);
    ASSERT_FALSE(got) << text;
    EXPECT_NE(det::render(got.error()).find(why), std::string::npos)
        << text << " -> " << det::render(got.error());
  }
}

TEST(duration, formatting_reads_back_to_the_same_duration) {
  const std::chrono::milliseconds ds[] = {0ms,   250ms, 1s,  90s,
                                          20min, 90min, 25h, 1500ms};
  for (auto d : ds) {
    auto text = format_duration(d);
    auto back = parse_duration(text);
    ASSERT_TRUE(back) << text;
    EXPECT_EQ(*back, d) << text;
  }
  EXPECT_EQ(format_duration(20min), "20m");
  EXPECT_EQ(format_duration(90s), "1m30s");
  EXPECT_EQ(format_duration(1500ms), "1.5s");
}

} // namespace
