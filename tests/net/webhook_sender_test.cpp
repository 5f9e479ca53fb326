// The webhook sender (net/webhook_sender.hpp) with a scripted HTTP client
// and an injected clock: signatures, retries with backoff, giving up, the
// queue's bound, cancellation. No thread is started: step() runs attempts.

#include "net/webhook_sender.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <deque>

namespace det::net {
namespace {

using std::chrono::milliseconds;

/// Answers each request with the next scripted status; 0 = no answer.
struct scripted_client : http_client {
  std::deque<int> statuses;
  std::vector<http_request> seen;
  caf::expected<http_response> send(const http_request& req) override {
    seen.push_back(req);
    int s = statuses.empty() ? 200 : statuses.front();
    if (!statuses.empty())
      statuses.pop_front();
    if (s == 0)
      return make_error(errc::remote_error, "[transport curl:7] refused");
    http_response r;
    r.status = s;
    return r;
  }
};

struct sender_fixture : ::testing::Test {
  std::shared_ptr<scripted_client> http = std::make_shared<scripted_client>();
  webhook_sender::clock::time_point t{};
  std::vector<webhook_outcome> outcomes;
  std::unique_ptr<webhook_sender> sender;

  void make(size_t max_queued = 10, int max_attempts = 4) {
    webhook_sender_options o;
    o.max_queued = max_queued;
    o.max_attempts = max_attempts;
    o.first_backoff = milliseconds{1000};
    o.max_backoff = milliseconds{3000};
    o.now = [this] { return t; };
    o.unix_now = [] { return int64_t{1700000000}; };
    sender = std::make_unique<webhook_sender>(
        http, "k3y", o, [this](webhook_outcome x) { outcomes.push_back(x); });
  }
};

std::string header(const http_request& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name)
      return v;
  return {};
}

TEST(webhook_signature, is_the_hex_hmac_of_timestamp_comma_body) {
  // HMAC-SHA256("key", "1,{}") computed independently (Python's hmac).
  EXPECT_EQ(webhook_signature("key", 1, "{}"),
            "c36b4a0d73fd874169b3e158456333bc4f9aae77bf5969f9993285932b155c86");
}

TEST_F(sender_fixture, a_delivery_is_posted_signed) {
  make();
  ASSERT_TRUE(sender->offer({7, 1, "http://127.0.0.1:1/h", R"({"a":1})"}));
  ASSERT_TRUE(sender->step());
  ASSERT_EQ(http->seen.size(), 1u);
  const auto& r = http->seen[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.body, R"({"a":1})");
  EXPECT_EQ(header(r, "X-Determined-AI-Signature-Timestamp"), "1700000000");
  EXPECT_EQ(header(r, "X-Determined-AI-Signature"),
            webhook_signature("k3y", 1700000000, R"({"a":1})"));
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_TRUE(outcomes[0].delivered);
  EXPECT_EQ(outcomes[0].attempts, 1);
  EXPECT_EQ(sender->queued(), 0u);
}

TEST_F(sender_fixture, a_receiver_down_at_first_gets_it_after_backoff) {
  make();
  http->statuses = {0, 503, 200};
  ASSERT_TRUE(sender->offer({1, 1, "http://127.0.0.1:1/h", "{}"}));
  EXPECT_TRUE(sender->step());  // refused
  EXPECT_FALSE(sender->step()); // waits 1 s
  t += milliseconds{999};
  EXPECT_FALSE(sender->step());
  t += milliseconds{1};
  EXPECT_TRUE(sender->step()); // 503
  t += milliseconds{1999};
  EXPECT_FALSE(sender->step()); // waits 2 s
  t += milliseconds{1};
  EXPECT_TRUE(sender->step());
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_TRUE(outcomes[0].delivered);
  EXPECT_EQ(outcomes[0].attempts, 3);
}

TEST_F(sender_fixture, it_gives_up_after_max_attempts_or_at_once_on_4xx) {
  make(10, 3);
  http->statuses = {500, 500, 500, 404};
  ASSERT_TRUE(sender->offer({1, 1, "http://127.0.0.1:1/h", "{}"}));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(sender->step());
    t += milliseconds{3000};
  }
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_FALSE(outcomes[0].delivered);
  EXPECT_EQ(outcomes[0].attempts, 3);
  EXPECT_EQ(outcomes[0].status, 500);
  ASSERT_TRUE(sender->offer({2, 1, "http://127.0.0.1:1/h", "{}"}));
  EXPECT_TRUE(sender->step());
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_FALSE(outcomes[1].delivered);
  EXPECT_EQ(outcomes[1].attempts, 1);
  EXPECT_EQ(outcomes[1].status, 404);
}

TEST_F(sender_fixture, the_queue_is_bounded_and_a_delivery_is_queued_once) {
  make(2);
  EXPECT_TRUE(sender->offer({1, 1, "http://x/", "{}"}));
  EXPECT_TRUE(sender->offer({1, 1, "http://x/", "{}"}));
  EXPECT_TRUE(sender->offer({2, 1, "http://x/", "{}"}));
  EXPECT_FALSE(sender->offer({3, 1, "http://x/", "{}"}));
  EXPECT_EQ(sender->queued(), 2u);
}

TEST_F(sender_fixture, a_cancelled_webhook_sends_nothing_more) {
  make();
  http->statuses = {0};
  ASSERT_TRUE(sender->offer({1, 5, "http://x/", "{}"}));
  ASSERT_TRUE(sender->offer({2, 6, "http://y/", "{}"}));
  sender->cancel_webhook(5);
  sender->set_url(6, "http://z/");
  EXPECT_TRUE(sender->step());
  ASSERT_EQ(http->seen.size(), 1u);
  EXPECT_EQ(http->seen[0].url, "http://z/");
  EXPECT_FALSE(sender->step());
  EXPECT_TRUE(outcomes.empty()); // 6 waits for its retry
}

} // namespace
} // namespace det::net
