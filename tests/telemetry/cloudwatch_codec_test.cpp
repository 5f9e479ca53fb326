// The wire forms of PutLogEvents and PutMetricData, and the split of
// datums into calls within PutMetricData's limits.

#include "aws/cloudwatch_client.hpp"
#include "aws/logs_client.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace det::aws;

TEST(cloudwatch_codec, put_log_events_body_is_the_json_cloudwatch_expects) {
  auto body = encode_put_log_events(
      "/determined/determined/journald", "i-1",
      {{1000, "a \"quoted\"\nline"}, {2000, std::string{"bad \xff byte"}}});
  auto doc = nlohmann::json::parse(body);
  EXPECT_EQ(doc["logGroupName"], "/determined/determined/journald");
  EXPECT_EQ(doc["logStreamName"], "i-1");
  ASSERT_EQ(doc["logEvents"].size(), 2u);
  EXPECT_EQ(doc["logEvents"][0]["timestamp"], 1000);
  EXPECT_EQ(doc["logEvents"][0]["message"], "a \"quoted\"\nline");
  EXPECT_EQ(doc["logEvents"][1]["message"], "bad \xEF\xBF\xBD byte");
}

TEST(cloudwatch_codec, rejected_log_events_info_becomes_counts) {
  auto r = parse_put_log_events(
      R"({"rejectedLogEventsInfo":{"tooOldLogEventEndIndex":2,)"
      R"("tooNewLogEventStartIndex":8,"expiredLogEventEndIndex":1}})",
      10);
  EXPECT_EQ(r.too_old, 2);
  EXPECT_EQ(r.too_new, 2);
  EXPECT_EQ(r.expired, 1);
  auto none = parse_put_log_events(R"({"nextSequenceToken":"x"})", 10);
  EXPECT_EQ(none.too_old + none.too_new + none.expired, 0);
  auto hostile = parse_put_log_events(
      R"({"rejectedLogEventsInfo":{"tooOldLogEventEndIndex":99999}})", 3);
  EXPECT_EQ(hostile.too_old, 3);
}

TEST(cloudwatch_codec, put_metric_data_params_name_every_field) {
  metric_datum d{"GPUUtilization",
                 {{"Cluster", "c1"}, {"GPU", "0"}},
                 87.5,
                 "Percent",
                 1'750'000'000'123};
  auto body = encode_put_metric_data("Determined", {d});
  EXPECT_NE(body.find("Action=PutMetricData&Version=2010-08-01"),
            std::string::npos);
  EXPECT_NE(body.find("MetricData.member.1.MetricName=GPUUtilization"),
            std::string::npos);
  EXPECT_NE(body.find("MetricData.member.1.Value=87.5"), std::string::npos);
  EXPECT_NE(
      body.find("MetricData.member.1.Timestamp=2025-06-15T15%3A06%3A40.123Z"),
      std::string::npos);
  EXPECT_NE(body.find("MetricData.member.1.Dimensions.member.2.Name=GPU"),
            std::string::npos);
}

TEST(cloudwatch_codec, split_keeps_every_call_within_1000_datums_and_1_mb) {
  std::vector<metric_datum> many;
  for (int i = 0; i < 2345; ++i)
    many.push_back({"M", {{"Cluster", "c"}}, double(i), "Count", 0});
  auto calls = split_metric_data("Determined", many);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].size(), 1000u);
  EXPECT_EQ(calls[2].size(), 345u);

  // Big dimension values: the byte limit cuts first.
  std::vector<metric_datum> big;
  for (int i = 0; i < 900; ++i)
    big.push_back({"M",
                   {{"Cluster", std::string(250, 'x')},
                    {"Pool", std::string(250, 'y')},
                    {"Instance", std::string(250, 'z')},
                    {"State", std::string(250, 'w')}},
                   double(i),
                   "Count",
                   0});
  metric_limits limits;
  auto cut = split_metric_data("Determined", big, limits);
  ASSERT_GT(cut.size(), 1u);
  size_t total = 0;
  for (const auto& c : cut) {
    EXPECT_LE(encode_put_metric_data("Determined", c).size(),
              limits.max_body_bytes);
    EXPECT_LE(c.size(), limits.max_datums);
    total += c.size();
  }
  EXPECT_EQ(total, big.size());
  // Order is kept across the calls.
  EXPECT_EQ(cut[1].front().value, double(cut[0].size()));
}
