// The Prometheus text exposition encoding.

#include "metrics/text_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace det::metrics;

TEST(text_format, family_has_help_and_type_lines_then_samples) {
  family f{"det_trials", "Trials by state.", metric_type::gauge, {}};
  f.samples.push_back({"", {{"state", "RUNNING"}}, 2});
  f.samples.push_back({"", {{"state", "PENDING"}}, 0});
  EXPECT_EQ(encode({f}), "# HELP det_trials Trials by state.\n"
                         "# TYPE det_trials gauge\n"
                         "det_trials{state=\"RUNNING\"} 2\n"
                         "det_trials{state=\"PENDING\"} 0\n");
}

TEST(text_format, label_values_escape_backslash_quote_and_newline) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  family f{"x_total", "h", metric_type::counter, {}};
  f.samples.push_back({"", {{"pool", "p\"1\n"}, {"op", "Run"}}, 3});
  EXPECT_EQ(encode({f}), "# HELP x_total h\n# TYPE x_total counter\n"
                         "x_total{pool=\"p\\\"1\\n\",op=\"Run\"} 3\n");
}

TEST(text_format, help_escapes_backslash_and_newline_but_not_quotes) {
  EXPECT_EQ(escape_help("say \"hi\"\\\nbye"), "say \"hi\"\\\\\\nbye");
}

TEST(text_format, values_are_integers_floats_and_special_names) {
  EXPECT_EQ(format_value(3), "3");
  EXPECT_EQ(format_value(-7), "-7");
  EXPECT_EQ(format_value(0.25), "0.25");
  EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_value(std::nan("")), "NaN");
}

TEST(text_format, histogram_samples_carry_their_suffixes) {
  family f{"lat_seconds", "l", metric_type::histogram, {}};
  f.samples.push_back({"_bucket", {{"le", "0.5"}}, 1});
  f.samples.push_back({"_bucket", {{"le", "+Inf"}}, 2});
  f.samples.push_back({"_sum", {}, 1.5});
  f.samples.push_back({"_count", {}, 2});
  EXPECT_EQ(encode({f}), "# HELP lat_seconds l\n# TYPE lat_seconds histogram\n"
                         "lat_seconds_bucket{le=\"0.5\"} 1\n"
                         "lat_seconds_bucket{le=\"+Inf\"} 2\n"
                         "lat_seconds_sum 1.5\nlat_seconds_count 2\n");
}

TEST(text_format, names_follow_the_prometheus_grammar) {
  EXPECT_TRUE(valid_metric_name("det_agents"));
  EXPECT_TRUE(valid_metric_name("ns:sub_total"));
  EXPECT_FALSE(valid_metric_name("9lives"));
  EXPECT_FALSE(valid_metric_name("has-dash"));
  EXPECT_FALSE(valid_metric_name(""));
  EXPECT_TRUE(valid_label_name("pool"));
  EXPECT_FALSE(valid_label_name("a:b"));
}
