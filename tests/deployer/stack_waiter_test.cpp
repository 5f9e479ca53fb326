// The stack waiter against a scripted stack: progress printed once and in
// order, the first real failure, updates, deletes, and the timeout on an
// injected clock.

#include "deployer/stack_waiter.hpp"

#include <gtest/gtest.h>

#include <deque>

using namespace det;
using namespace det::deploy;
using aws::stack_key_value;

// ---- the stack waiter against a scripted stack ----

namespace {

// Each describe_stack() pops the next status (the last one repeats) and
// makes the next batch of events visible; events are served newest first,
// two per page.
class scripted_stack final : public aws::cloudformation_client {
public:
  std::deque<std::string> statuses;
  std::deque<std::vector<aws::stack_event>> batches;
  std::vector<aws::stack_event> visible; // oldest first
  int describes = 0;
  bool gone_after_last = false;

  caf::expected<std::string> create_stack(const aws::stack_request&) override {
    return std::string{"sid"};
  }
  caf::expected<std::string> update_stack(const aws::stack_request&) override {
    return std::string{"sid"};
  }
  caf::expected<std::optional<aws::stack>>
  describe_stack(const std::string&) override {
    ++describes;
    if (!batches.empty()) {
      for (auto& e : batches.front())
        visible.push_back(e);
      batches.pop_front();
    }
    aws::stack s;
    s.stack_id = "sid";
    s.stack_name = "c1";
    s.status = statuses.front();
    if (statuses.size() > 1)
      statuses.pop_front();
    else if (gone_after_last)
      return std::optional<aws::stack>{};
    return std::optional<aws::stack>{s};
  }
  caf::expected<std::vector<aws::stack>> describe_all_stacks() override {
    return std::vector<aws::stack>{};
  }
  caf::expected<std::pair<std::vector<aws::stack_event>, std::string>>
  describe_stack_events(const std::string&, const std::string& token) override {
    size_t start = token.empty() ? 0 : std::stoul(token);
    std::vector<aws::stack_event> page;
    size_t n = visible.size();
    for (size_t i = start; i < std::min(n, start + 2); ++i)
      page.push_back(visible[n - 1 - i]);
    std::string next = start + 2 < n ? std::to_string(start + 2) : "";
    return std::make_pair(page, next);
  }
  caf::error delete_stack(const std::string&) override { return caf::none; }
};

aws::stack_event ev(const std::string& id, const std::string& logical,
                    const std::string& status, const std::string& reason = "") {
  aws::stack_event e;
  e.event_id = id;
  e.logical_id = logical;
  e.resource_type = "AWS::X::Y";
  e.status = status;
  e.reason = reason;
  e.timestamp = "2024-05-01T00:00:00Z";
  return e;
}

struct fake_time {
  std::chrono::steady_clock::time_point t{};
  std::vector<std::chrono::milliseconds> sleeps;
  waiter_clock clock() {
    return {[this] { return t; },
            [this](std::chrono::milliseconds d) {
              sleeps.push_back(d);
              t += d;
            }};
  }
};

} // namespace

TEST(stack_waiter,
     prints_each_new_event_once_in_order_and_reports_the_first_real_failure) {
  scripted_stack cf;
  cf.statuses = {"CREATE_IN_PROGRESS", "CREATE_IN_PROGRESS",
                 "ROLLBACK_IN_PROGRESS", "ROLLBACK_COMPLETE"};
  cf.batches = {
      {ev("1", "c1", "CREATE_IN_PROGRESS")},
      {ev("2", "Bucket", "CREATE_IN_PROGRESS"),
       ev("3", "Database", "CREATE_IN_PROGRESS"),
       ev("4", "Bucket", "CREATE_COMPLETE")},
      {ev("5", "Role", "CREATE_FAILED", "Resource creation cancelled"),
       ev("6", "Database", "CREATE_FAILED", "quota exceeded"),
       ev("7", "c1", "ROLLBACK_IN_PROGRESS")},
      {ev("8", "c1", "ROLLBACK_COMPLETE")}};
  event_follower follower(cf, "sid");
  fake_time time;
  wait_options opts;
  opts.poll_interval = std::chrono::seconds(5);
  std::vector<std::string> printed;
  auto result = wait_for_stack(
      cf, "sid", stack_operation::create, follower, opts, time.clock(),
      [&](const aws::stack_event& e) { printed.push_back(e.event_id); });
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->ok);
  EXPECT_FALSE(result->timed_out);
  EXPECT_EQ(result->final.status, "ROLLBACK_COMPLETE");
  EXPECT_EQ(printed,
            (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8"}));
  ASSERT_TRUE(result->first_failure);
  EXPECT_EQ(result->first_failure->logical_id, "Database");
  EXPECT_EQ(result->first_failure->reason, "quota exceeded");
  EXPECT_EQ(time.sleeps.size(), 3u);
  EXPECT_EQ(failure_message(*result, "sid", opts.timeout),
            "stack c1 ended ROLLBACK_COMPLETE; first failure: Database "
            "(AWS::X::Y) CREATE_FAILED: quota exceeded");
}

TEST(stack_waiter, an_update_shows_only_its_own_events_and_succeeds) {
  scripted_stack cf;
  cf.statuses = {"CREATE_COMPLETE", "UPDATE_IN_PROGRESS", "UPDATE_COMPLETE"};
  cf.visible = {
      ev("1", "c1", "CREATE_IN_PROGRESS"), ev("2", "A", "CREATE_COMPLETE"),
      ev("3", "B", "CREATE_COMPLETE"), ev("4", "c1", "CREATE_COMPLETE"),
      ev("5", "c1", "CREATE_COMPLETE")};
  event_follower follower(cf, "sid");
  ASSERT_FALSE(follower.skip_existing());
  cf.statuses.pop_front();
  cf.batches = {{ev("6", "c1", "UPDATE_IN_PROGRESS")},
                {ev("7", "c1", "UPDATE_COMPLETE")}};
  fake_time time;
  std::vector<std::string> printed;
  auto result = wait_for_stack(
      cf, "sid", stack_operation::update, follower, wait_options{},
      time.clock(),
      [&](const aws::stack_event& e) { printed.push_back(e.event_id); });
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->ok);
  EXPECT_EQ(printed, (std::vector<std::string>{"6", "7"}));
  EXPECT_FALSE(result->first_failure);
  EXPECT_FALSE(failure_message(*result, "sid", std::chrono::seconds(1)));
}

TEST(stack_waiter, gives_up_at_the_timeout_without_sleeping_past_it) {
  scripted_stack cf;
  cf.statuses = {"CREATE_IN_PROGRESS"};
  event_follower follower(cf, "sid");
  fake_time time;
  wait_options opts;
  opts.timeout = std::chrono::seconds(12);
  opts.poll_interval = std::chrono::seconds(5);
  auto result = wait_for_stack(cf, "sid", stack_operation::create, follower,
                               opts, time.clock(), [](const auto&) {});
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->timed_out);
  EXPECT_FALSE(result->ok);
  EXPECT_EQ(time.sleeps, (std::vector<std::chrono::milliseconds>{
                             std::chrono::seconds(5), std::chrono::seconds(5),
                             std::chrono::seconds(2)}));
  EXPECT_EQ(cf.describes, 4);
  EXPECT_EQ(
      failure_message(*result, "sid", opts.timeout),
      "gave up after 12s waiting for stack c1 (still CREATE_IN_PROGRESS); "
      "CloudFormation carries on: see `det-deploy aws list`, or raise "
      "--timeout");
}

TEST(stack_waiter, a_deleted_stack_that_cannot_be_described_is_deleted) {
  scripted_stack cf;
  cf.statuses = {"DELETE_IN_PROGRESS", "DELETE_IN_PROGRESS"};
  cf.gone_after_last = true;
  event_follower follower(cf, "sid");
  fake_time time;
  auto result =
      wait_for_stack(cf, "sid", stack_operation::remove, follower,
                     wait_options{}, time.clock(), [](const auto&) {});
  ASSERT_TRUE(result);
  EXPECT_TRUE(result->ok);
  EXPECT_EQ(result->final.status, "DELETE_COMPLETE");
}
