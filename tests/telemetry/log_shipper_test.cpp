// log_shipper::pump() against a scripted CloudWatch Logs client: what is
// sent, when the cursor is saved, how failures are retried. The wire itself
// is tested against moto in cloudwatch_moto_test.cpp.

#include "aws/aws_error.hpp"
#include "telemetry/log_shipper.hpp"

#include <gtest/gtest.h>

#include <deque>

using namespace det::telemetry;
using det::aws::aws_error_kind;
using det::aws::cloudwatch_log_event;
using det::policy::queued_log_event;
using std::chrono::milliseconds;

namespace {

constexpr int64_t now = 1'750'000'000'000;

caf::error aws_error(aws_error_kind kind, const std::string& code) {
  return det::aws::make_aws_error(kind, code, "logs PutLogEvents", "scripted");
}

// Answers each call with the next scripted error (none = success).
class scripted_logs final : public det::aws::logs_client {
public:
  std::deque<caf::error> put_script, group_script, stream_script;
  std::vector<std::vector<cloudwatch_log_event>> puts;
  int groups = 0, streams = 0;

  caf::error create_log_group(const std::string&) override {
    ++groups;
    return next(group_script);
  }
  caf::error create_log_stream(const std::string&,
                               const std::string&) override {
    ++streams;
    return next(stream_script);
  }
  caf::expected<det::aws::put_log_events_result>
  put_log_events(const std::string&, const std::string&,
                 const std::vector<cloudwatch_log_event>& events) override {
    if (auto err = next(put_script))
      return err;
    puts.push_back(events);
    return det::aws::put_log_events_result{};
  }

private:
  static caf::error next(std::deque<caf::error>& s) {
    if (s.empty())
      return {};
    auto e = s.front();
    s.pop_front();
    return e;
  }
};

class memory_cursor final : public cursor_store {
public:
  std::vector<std::string> saves;
  std::string load() override { return saves.empty() ? "" : saves.back(); }
  caf::error save(const std::string& c) override {
    saves.push_back(c);
    return {};
  }
};

struct log_shipper_pump : ::testing::Test {
  std::shared_ptr<scripted_logs> logs = std::make_shared<scripted_logs>();
  std::shared_ptr<memory_cursor> cursor = std::make_shared<memory_cursor>();
  log_shipper_options opts() {
    log_shipper_options o;
    o.stream = "i-0123";
    o.max_queued = 5;
    o.now_ms = [] { return now; };
    o.uniform01 = [] { return 0.0; }; // no jitter: d(n) = min(cap, 500*2^(n-1))
    return o;
  }
};

} // namespace

TEST_F(log_shipper_pump, a_batch_is_sent_and_then_its_cursor_saved) {
  log_shipper s{opts(), logs, cursor};
  ASSERT_TRUE(s.offer({now - 2, "one", "c1"}));
  ASSERT_TRUE(s.offer({now - 1, "two", "c2"}));
  s.pump();
  EXPECT_EQ(logs->groups, 1);
  EXPECT_EQ(logs->streams, 1);
  ASSERT_EQ(logs->puts.size(), 1u);
  ASSERT_EQ(logs->puts[0].size(), 2u);
  EXPECT_EQ(logs->puts[0][0].message, "one");
  EXPECT_EQ(logs->puts[0][1].message, "two");
  EXPECT_EQ(cursor->saves, std::vector<std::string>{"c2"});
  EXPECT_EQ(s.stats().events_sent, 2);
  EXPECT_EQ(s.stats().queued, 0u);
}

TEST_F(log_shipper_pump,
       throttling_keeps_the_batch_backs_off_and_never_saves_early) {
  logs->put_script = {
      aws_error(aws_error_kind::throttling, "ThrottlingException"),
      aws_error(aws_error_kind::server_error, "ServiceUnavailableException"),
      aws_error(aws_error_kind::transport, "")};
  log_shipper s{opts(), logs, cursor};
  ASSERT_TRUE(s.offer({now, "one", "c1"}));
  EXPECT_EQ(s.pump(), milliseconds{500});
  EXPECT_EQ(s.pump(), milliseconds{1000});
  EXPECT_EQ(s.pump(), milliseconds{2000});
  EXPECT_TRUE(cursor->saves.empty());
  EXPECT_TRUE(logs->puts.empty());
  EXPECT_EQ(s.stats().queued, 1u);
  s.pump();
  ASSERT_EQ(logs->puts.size(), 1u); // sent once, not once per attempt
  EXPECT_EQ(cursor->saves, std::vector<std::string>{"c1"});
  EXPECT_EQ(s.stats().calls_failed, 3);
  // The streak is over: the next failure starts again from the first delay.
  logs->put_script = {aws_error(aws_error_kind::throttling, "Throttling")};
  ASSERT_TRUE(s.offer({now, "two", "c2"}));
  EXPECT_EQ(s.pump(), milliseconds{500});
}

TEST_F(log_shipper_pump, the_backoff_stops_growing_at_its_cap) {
  auto o = opts();
  o.backoff_max = milliseconds{3000};
  for (int i = 0; i < 6; ++i)
    logs->put_script.push_back(
        aws_error(aws_error_kind::throttling, "Throttling"));
  log_shipper s{o, logs, cursor};
  ASSERT_TRUE(s.offer({now, "x", ""}));
  milliseconds last{0};
  for (int i = 0; i < 6; ++i)
    last = s.pump();
  EXPECT_EQ(last, milliseconds{3000});
}

TEST_F(log_shipper_pump, a_deleted_stream_is_created_again_before_the_retry) {
  logs->put_script = {
      aws_error(aws_error_kind::bad_request, "ResourceNotFoundException")};
  log_shipper s{opts(), logs, cursor};
  ASSERT_TRUE(s.offer({now, "x", "c1"}));
  s.pump();
  EXPECT_EQ(logs->streams, 1);
  s.pump();
  EXPECT_EQ(logs->streams, 2);
  EXPECT_EQ(logs->puts.size(), 1u);
  EXPECT_EQ(cursor->saves, std::vector<std::string>{"c1"});
}

TEST_F(log_shipper_pump,
       a_batch_refused_as_invalid_is_dropped_counted_and_passed) {
  logs->put_script = {
      aws_error(aws_error_kind::bad_request, "InvalidParameterException")};
  log_shipper s{opts(), logs, cursor};
  ASSERT_TRUE(s.offer({now, "bad", "c1"}));
  s.pump();
  EXPECT_EQ(s.stats().dropped_invalid, 1);
  EXPECT_EQ(s.stats().queued, 0u);
  // Moving on past it is a decision: the cursor goes past it too.
  EXPECT_EQ(cursor->saves, std::vector<std::string>{"c1"});
}

TEST_F(log_shipper_pump, an_auth_failure_is_retried_not_dropped) {
  logs->put_script = {aws_error(aws_error_kind::auth, "AccessDeniedException")};
  log_shipper s{opts(), logs, cursor};
  ASSERT_TRUE(s.offer({now, "x", "c1"}));
  s.pump();
  EXPECT_EQ(s.stats().queued, 1u);
  s.pump();
  EXPECT_EQ(logs->puts.size(), 1u);
}

TEST_F(log_shipper_pump, creating_the_group_failing_backs_off_without_a_put) {
  logs->group_script = {aws_error(aws_error_kind::transport, "")};
  log_shipper s{opts(), logs, cursor};
  ASSERT_TRUE(s.offer({now, "x", ""}));
  EXPECT_EQ(s.pump(), milliseconds{500});
  EXPECT_TRUE(logs->puts.empty());
  s.pump();
  EXPECT_EQ(logs->groups, 2);
  EXPECT_EQ(logs->puts.size(), 1u);
}

TEST_F(log_shipper_pump, own_lines_past_the_bound_are_dropped_and_counted) {
  log_shipper s{opts(), logs, cursor};
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(s.offer({now, "x", ""}));
  EXPECT_FALSE(s.offer({now, "one too many", ""}));
  EXPECT_EQ(s.stats().dropped_queue_full, 1);
  EXPECT_EQ(s.stats().queued, 5u);
}

TEST_F(log_shipper_pump, journald_waits_for_room_and_gives_up_when_cancelled) {
  log_shipper s{opts(), logs, cursor};
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(s.offer({now, "x", ""}));
  std::atomic<bool> cancel{true};
  EXPECT_FALSE(s.push_wait({now, "y", "c9"}, cancel));
  EXPECT_EQ(s.stats().dropped_queue_full, 0); // not dropped: read again later
  s.pump();                                   // room again
  cancel = false;
  EXPECT_TRUE(s.push_wait({now, "y", "c9"}, cancel));
}

TEST_F(log_shipper_pump, the_thread_ships_what_is_offered_and_stop_drains_it) {
  auto o = opts();
  o.flush_interval = milliseconds{20};
  log_shipper s{o, logs, cursor};
  s.start();
  ASSERT_TRUE(s.offer({now, "a", "c1"}));
  ASSERT_TRUE(s.offer({now, "b", "c2"}));
  s.stop(std::chrono::seconds{10});
  size_t sent = 0;
  for (const auto& p : logs->puts)
    sent += p.size();
  EXPECT_EQ(sent, 2u);
  EXPECT_EQ(cursor->saves.back(), "c2");
}

TEST_F(log_shipper_pump, a_batch_cut_by_a_limit_is_followed_at_once) {
  auto o = opts();
  o.max_queued = 100;
  o.limits.max_events = 3;
  log_shipper s{o, logs, cursor};
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(s.offer({now, "x", ""}));
  EXPECT_EQ(s.pump(), milliseconds{0});  // 3 sent, 1 ready
  EXPECT_EQ(s.pump(), o.flush_interval); // all sent: gather again
}
