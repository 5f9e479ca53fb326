// metric_publisher::round() against a scripted CloudWatch client: an
// outage keeps every datum for the next round, in order, with its own
// timestamp; the backlog is bounded.

#include "aws/aws_error.hpp"
#include "telemetry/metric_publisher.hpp"

#include <gtest/gtest.h>

#include <deque>

using namespace det::telemetry;
using det::aws::aws_error_kind;
using det::aws::metric_datum;

namespace {

class scripted_cloudwatch final : public det::aws::cloudwatch_client {
public:
  std::deque<caf::error> script;
  std::vector<std::vector<metric_datum>> calls;

  caf::error put_metric_data(const std::string&,
                             const std::vector<metric_datum>& d) override {
    if (!script.empty()) {
      auto e = script.front();
      script.pop_front();
      if (e)
        return e;
    }
    calls.push_back(d);
    return {};
  }

  std::vector<double> values() const {
    std::vector<double> out;
    for (const auto& c : calls)
      for (const auto& d : c)
        out.push_back(d.value);
    return out;
  }
};

caf::error down() {
  return det::aws::make_aws_error(aws_error_kind::server_error, "HTTP503",
                                  "monitoring PutMetricData", "down");
}

struct metric_publisher_round : ::testing::Test {
  std::shared_ptr<scripted_cloudwatch> cw =
      std::make_shared<scripted_cloudwatch>();
  int64_t clock = 1'750'000'000'000;
  double next_value = 0;

  metric_publisher make(size_t per_round, size_t max_pending = 100'000) {
    metric_publisher_options o;
    o.now_ms = [this] { return clock; };
    o.max_pending = max_pending;
    return metric_publisher{
        o, cw, [this, per_round](int64_t at_ms) {
          std::vector<metric_datum> out;
          for (size_t i = 0; i < per_round; ++i)
            out.push_back({"M", {}, next_value++, "Count", at_ms});
          return out;
        }};
  }
};

} // namespace

TEST_F(metric_publisher_round,
       an_outage_keeps_the_datums_for_the_next_round_in_order) {
  auto p = make(2);
  cw->script = {down()};
  EXPECT_FALSE(p.round());
  EXPECT_EQ(p.stats().pending, 2u);
  clock += 60'000;
  EXPECT_TRUE(p.round());
  EXPECT_EQ(cw->values(), (std::vector<double>{0, 1, 2, 3}));
  // Each datum keeps the time it was measured at.
  EXPECT_EQ(cw->calls[0][0].timestamp_ms, clock - 60'000);
  EXPECT_EQ(cw->calls[0][3].timestamp_ms, clock);
  EXPECT_EQ(p.stats().calls_failed, 1);
  EXPECT_EQ(p.stats().datums_sent, 4);
}

TEST_F(metric_publisher_round,
       a_round_is_cut_into_calls_of_at_most_1000_datums) {
  auto p = make(2500);
  EXPECT_TRUE(p.round());
  ASSERT_EQ(cw->calls.size(), 3u);
  EXPECT_EQ(cw->calls[0].size(), 1000u);
  EXPECT_EQ(cw->calls[1].size(), 1000u);
  EXPECT_EQ(cw->calls[2].size(), 500u);
}

TEST_F(metric_publisher_round, a_failure_midway_keeps_only_what_was_not_sent) {
  auto p = make(2500);
  cw->script = {caf::error{}, down()}; // first call fine, second fails
  EXPECT_FALSE(p.round());
  EXPECT_EQ(p.stats().datums_sent, 1000);
  EXPECT_EQ(p.stats().pending, 1500u);
  EXPECT_TRUE(p.round());
  auto v = cw->values();
  ASSERT_EQ(v.size(), 5000u);
  for (size_t i = 0; i < v.size(); ++i)
    ASSERT_EQ(v[i], static_cast<double>(i)); // no datum twice, none lost
}

TEST_F(metric_publisher_round,
       a_long_outage_drops_the_oldest_past_the_bound_and_counts) {
  auto p = make(3, 5);
  cw->script = {down(), down()};
  p.round();
  p.round();
  EXPECT_EQ(p.stats().pending, 5u);
  EXPECT_EQ(p.stats().dropped_backlog, 1);
  // The third round brings three more: the three oldest make room.
  EXPECT_TRUE(p.round());
  EXPECT_EQ(p.stats().dropped_backlog, 4);
  EXPECT_EQ(cw->values(), (std::vector<double>{4, 5, 6, 7, 8}));
}

TEST_F(metric_publisher_round,
       a_call_refused_as_invalid_is_dropped_not_retried_forever) {
  auto p = make(1);
  cw->script = {det::aws::make_aws_error(aws_error_kind::bad_request,
                                         "InvalidParameterValue",
                                         "monitoring PutMetricData", "no")};
  EXPECT_TRUE(p.round());
  EXPECT_EQ(p.stats().dropped_invalid, 1);
  EXPECT_EQ(p.stats().pending, 0u);
}

TEST_F(metric_publisher_round, datums_older_than_two_weeks_are_dropped) {
  auto p = make(1);
  cw->script = {down()};
  p.round();
  clock += 15LL * 24 * 3600 * 1000;
  EXPECT_TRUE(p.round());
  EXPECT_EQ(p.stats().dropped_too_old, 1);
  EXPECT_EQ(cw->values(), std::vector<double>{1});
}
