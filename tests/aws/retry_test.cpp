// Retries of the Query API against a scripted loopback HTTP server: the
// number of attempts, and the backoff delays requested from an injected
// clock that never really sleeps.

#include "aws/aws_error.hpp"
#include "aws/query_ec2_client.hpp"
#include "messages/errc.hpp"
#include "scripted_http_server.hpp"

#include <gtest/gtest.h>

using namespace det::aws;
using namespace std::chrono;
using namespace std::chrono_literals;
using det::aws::test::scripted_http_server;
using det::aws::test::scripted_response;

namespace {

const std::string throttled =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error>"
    "<Code>RequestLimitExceeded</Code><Message>Request limit exceeded."
    "</Message></Error></Errors><RequestID>r-1</RequestID></Response>";

const std::string bad_param =
    "<Response><Errors><Error><Code>InvalidParameterValue</Code><Message>"
    "Value (x) for parameter instanceType is invalid.</Message></Error>"
    "</Errors><RequestID>r-2</RequestID></Response>";

const std::string auth_failure =
    "<Response><Errors><Error><Code>AuthFailure</Code><Message>AWS was not "
    "able to validate the provided access credentials</Message></Error>"
    "</Errors><RequestID>r-3</RequestID></Response>";

const std::string described =
    "<DescribeInstancesResponse xmlns=\"http://ec2.amazonaws.com/doc/"
    "2016-11-15/\"><requestId>ok</requestId><reservationSet><item>"
    "<reservationId>r-9</reservationId><instancesSet><item><instanceId>"
    "i-0abc</instanceId><instanceState><code>16</code><name>running</name>"
    "</instanceState></item></instancesSet></item></reservationSet>"
    "</DescribeInstancesResponse>";

// A clock that advances only when asked to sleep, and records each sleep.
struct fake_clock {
  steady_clock::time_point now{};
  std::vector<milliseconds> sleeps;
  double u = 0.5;

  retry_clock handle() {
    retry_clock c;
    c.now = [this] { return now; };
    c.sleep = [this](milliseconds d) {
      sleeps.push_back(d);
      now += d;
    };
    c.uniform01 = [this] { return u; };
    return c;
  }
};

class retries : public ::testing::Test {
protected:
  std::shared_ptr<query_ec2_client> client_for(scripted_http_server& server) {
    ec2_client_config cfg;
    cfg.endpoint_url = server.url();
    cfg.timeout = 5s;
    cfg.retry = policy;
    auto api = make_ec2_query_api(
        cfg, make_static_credentials({"AKID", "secret", "", std::nullopt, "t"}),
        det::net::make_curl_http_client(), clock.handle());
    return std::make_shared<query_ec2_client>(api, cfg);
  }

  retry_policy policy{5, 100ms, 20s, 60s};
  fake_clock clock;
};

} // namespace

TEST(backoff, delay_is_jittered_below_a_doubling_cap) {
  retry_policy p{10, 100ms, 1000ms, 60s};
  EXPECT_EQ(backoff_delay(p, 1, 1.0), 100ms);
  EXPECT_EQ(backoff_delay(p, 2, 1.0), 200ms);
  EXPECT_EQ(backoff_delay(p, 3, 0.5), 200ms);
  EXPECT_EQ(backoff_delay(p, 5, 1.0), 1000ms) << "capped by max_delay";
  EXPECT_EQ(backoff_delay(p, 60, 1.0), 1000ms) << "no overflow";
  EXPECT_EQ(backoff_delay(p, 3, 0.0), 0ms);
}

TEST_F(retries, throttling_is_retried_with_backoff_until_success) {
  scripted_http_server server{
      {{503, throttled}, {503, throttled}, {200, described}}};
  auto res = client_for(server)->describe_instances({});
  ASSERT_TRUE(res) << det::render(res.error());
  ASSERT_EQ(res->size(), 1u);
  EXPECT_EQ(res->front().instance_id, "i-0abc");
  EXPECT_EQ(server.request_count(), 3);
  EXPECT_EQ(clock.sleeps, (std::vector<milliseconds>{50ms, 100ms}));
}

TEST_F(retries, server_errors_and_dropped_connections_are_retried) {
  scripted_http_server server{
      {{500, "<html>oops</html>"}, {200, "", true}, {200, described}}};
  auto res = client_for(server)->describe_instances({});
  ASSERT_TRUE(res) << det::render(res.error());
  EXPECT_EQ(server.request_count(), 3);
  EXPECT_EQ(clock.sleeps.size(), 2u);
}

TEST_F(retries, attempts_budget_ends_the_loop_with_the_last_error) {
  policy.max_attempts = 4;
  scripted_http_server server{{{503, throttled}}};
  auto res = client_for(server)->describe_instances({});
  ASSERT_FALSE(res);
  EXPECT_EQ(server.request_count(), 4);
  EXPECT_EQ(clock.sleeps, (std::vector<milliseconds>{50ms, 100ms, 200ms}));
  auto info = aws_error_of(res.error());
  EXPECT_EQ(info.kind, aws_error_kind::throttling);
  EXPECT_EQ(info.code, "RequestLimitExceeded");
  auto text = det::render(res.error());
  EXPECT_NE(text.find("gave up after 4 attempts"), std::string::npos) << text;
  EXPECT_NE(text.find("DescribeInstances"), std::string::npos) << text;
}

TEST_F(retries, time_budget_stops_before_a_delay_that_would_overrun_it) {
  policy.max_total = 250ms;
  clock.u = 1.0; // delays 100, 200, ...: 100 + 200 > 250
  scripted_http_server server{{{503, throttled}}};
  auto res = client_for(server)->describe_instances({});
  ASSERT_FALSE(res);
  EXPECT_EQ(server.request_count(), 2);
  EXPECT_EQ(clock.sleeps, (std::vector<milliseconds>{100ms}));
}

TEST_F(retries, bad_requests_and_auth_failures_are_not_retried) {
  scripted_http_server bad{{{400, bad_param}}};
  auto res = client_for(bad)->describe_instances({});
  ASSERT_FALSE(res);
  EXPECT_EQ(aws_error_of(res.error()).kind, aws_error_kind::bad_request);
  EXPECT_EQ(bad.request_count(), 1);

  scripted_http_server denied{{{401, auth_failure}}};
  res = client_for(denied)->describe_instances({});
  ASSERT_FALSE(res);
  EXPECT_EQ(aws_error_of(res.error()).kind, aws_error_kind::auth);
  EXPECT_EQ(denied.request_count(), 1);
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST_F(retries, a_closed_port_is_a_transport_error_after_the_budget) {
  policy.max_attempts = 3;
  std::string url;
  {
    scripted_http_server gone{{{200, described}}};
    url = gone.url();
  } // closed: nothing listens there now
  ec2_client_config cfg;
  cfg.endpoint_url = url;
  cfg.retry = policy;
  auto api = make_ec2_query_api(
      cfg, make_static_credentials({"AKID", "secret", "", std::nullopt, "t"}),
      det::net::make_curl_http_client(), clock.handle());
  query_ec2_client client{api, cfg};
  auto res = client.describe_instances({});
  ASSERT_FALSE(res);
  EXPECT_EQ(aws_error_of(res.error()).kind, aws_error_kind::transport)
      << det::render(res.error());
  EXPECT_EQ(clock.sleeps.size(), 2u);
}

TEST_F(retries, requests_are_signed_posts_of_the_query_form) {
  scripted_http_server server{{{200, described}}};
  describe_instances_request req;
  req.filters = {tag_filter("det pool", "a&b")};
  auto res = client_for(server)->describe_instances(req);
  ASSERT_TRUE(res) << det::render(res.error());
  auto raw = server.requests().at(0);
  EXPECT_EQ(raw.rfind("POST / HTTP/1.1\r\n", 0), 0u) << raw;
  EXPECT_NE(raw.find("Authorization: AWS4-HMAC-SHA256 Credential=AKID/"),
            std::string::npos);
  EXPECT_NE(raw.find("/us-east-1/ec2/aws4_request"), std::string::npos);
  EXPECT_NE(raw.find("Action=DescribeInstances&Version=2016-11-15&"
                     "Filter.1.Name=tag%3Adet%20pool&Filter.1.Value.1=a%26b"),
            std::string::npos)
      << raw;
}
