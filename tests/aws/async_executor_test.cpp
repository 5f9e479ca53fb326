// The executor that keeps AWS calls off actor threads, and async_ec2 over a
// fake ec2_client. Waits use futures, never sleeps.

#include "aws/async_ec2.hpp"
#include "aws/aws_error.hpp"
#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

using namespace det::aws;

namespace {

// An ec2_client that answers from memory: what a provisioner's tests use.
class fake_ec2 final : public ec2_client {
public:
  caf::expected<std::vector<instance>>
  run_instances(const run_instances_request& req) override {
    std::vector<instance> out;
    for (int i = 0; i < req.min_count; ++i) {
      instance inst;
      inst.instance_id = "i-" + std::to_string(next_++);
      inst.state = "pending";
      inst.tags = req.instance_tags;
      out.push_back(inst);
      launched_.push_back(inst);
    }
    return out;
  }

  caf::expected<std::vector<instance>>
  describe_instances(const describe_instances_request&) override {
    return launched_;
  }

  caf::expected<terminate_result>
  terminate_instances(const std::vector<std::string>& ids) override {
    terminate_result r;
    for (const auto& id : ids)
      r.not_found.push_back(id);
    return r;
  }

  caf::error create_tags(const std::vector<std::string>&,
                         const std::vector<ec2_tag>& tags) override {
    if (tags.empty())
      return make_aws_error(aws_error_kind::bad_request, "MissingParameter",
                            "fake CreateTags", "no tags");
    return {};
  }

  caf::expected<std::vector<spot_instance_request>>
  request_spot_instances(const spot_request_spec&) override {
    return make_aws_error(aws_error_kind::insufficient_capacity,
                          "InsufficientInstanceCapacity", "fake", "none left");
  }

  caf::expected<std::vector<spot_instance_request>>
  describe_spot_instance_requests(
      const describe_spot_requests_request&) override {
    return std::vector<spot_instance_request>{};
  }

  caf::expected<std::vector<security_group>>
  describe_security_groups(const std::vector<ec2_filter>&) override {
    return std::vector<security_group>{};
  }

  caf::expected<std::vector<spot_cancel_result>>
  cancel_spot_instance_requests(const std::vector<std::string>& ids) override {
    std::vector<spot_cancel_result> out;
    for (const auto& id : ids)
      out.push_back({id, "cancelled"});
    return out;
  }

private:
  int next_ = 1;
  std::vector<instance> launched_;
};

} // namespace

TEST(async_executor, results_arrive_on_a_worker_thread_not_the_caller) {
  async_executor ex{2};
  std::promise<std::pair<int, std::thread::id>> got;
  ex.run<int>([] { return caf::expected<int>{42}; },
              [&](caf::expected<int> v) {
                got.set_value({v ? *v : -1, std::this_thread::get_id()});
              });
  auto [value, thread] = got.get_future().get();
  EXPECT_EQ(value, 42);
  EXPECT_NE(thread, std::this_thread::get_id());
}

TEST(async_executor, every_job_gets_exactly_one_callback) {
  constexpr int jobs = 500;
  async_executor ex{4, jobs};
  std::atomic<int> ok{0};
  std::atomic<int> callbacks{0};
  std::promise<void> all_done;
  for (int i = 0; i < jobs; ++i)
    ex.run<int>([i] { return caf::expected<int>{i}; },
                [&, i](caf::expected<int> v) {
                  if (v && *v == i)
                    ++ok;
                  if (++callbacks == jobs)
                    all_done.set_value();
                });
  all_done.get_future().wait();
  ex.shutdown();
  EXPECT_EQ(ok.load(), jobs);
  EXPECT_EQ(callbacks.load(), jobs);
}

TEST(async_executor, a_full_queue_refuses_the_call_with_an_error) {
  async_executor ex{1, 1};
  std::promise<void> gate;
  auto gate_future = gate.get_future().share();
  std::promise<void> started;
  ex.run<int>(
      [&] {
        started.set_value();
        gate_future.wait();
        return caf::expected<int>{1};
      },
      [](caf::expected<int>) {});
  started.get_future().wait(); // the worker is busy now
  std::promise<caf::expected<int>> queued_result;
  ex.run<int>([] { return caf::expected<int>{2}; },
              [&](caf::expected<int> v) { queued_result.set_value(v); });
  bool refused = false;
  std::string why;
  ex.run<int>([] { return caf::expected<int>{3}; },
              [&](caf::expected<int> v) {
                refused = !v;
                why = v ? "" : det::render(v.error());
              });
  EXPECT_TRUE(refused) << "the refusal is reported at once, on this thread";
  EXPECT_NE(why.find("already queued"), std::string::npos) << why;
  gate.set_value();
  auto second = queued_result.get_future().get();
  ASSERT_TRUE(second);
  EXPECT_EQ(*second, 2);
}

TEST(async_executor, shutdown_cancels_queued_calls_and_waits_for_running_ones) {
  async_executor ex{1, 10};
  std::promise<void> gate;
  auto gate_future = gate.get_future().share();
  std::promise<void> started;
  std::promise<bool> running_result;
  ex.run<int>(
      [&] {
        started.set_value();
        gate_future.wait();
        return caf::expected<int>{1};
      },
      [&](caf::expected<int> v) {
        running_result.set_value(static_cast<bool>(v));
      });
  started.get_future().wait();
  std::promise<std::string> cancelled;
  ex.run<int>([] { return caf::expected<int>{2}; },
              [&](caf::expected<int> v) {
                cancelled.set_value(v ? "ran" : det::render(v.error()));
              });
  std::thread stopper([&] { ex.shutdown(); });
  auto why = cancelled.get_future().get();
  EXPECT_NE(why.find("shut down before the call started"), std::string::npos)
      << why;
  gate.set_value();
  stopper.join();
  EXPECT_TRUE(running_result.get_future().get());
  bool after = true;
  ex.run<int>([] { return caf::expected<int>{3}; },
              [&](caf::expected<int> v) { after = static_cast<bool>(v); });
  EXPECT_FALSE(after) << "no calls after shutdown";
}

TEST(async_ec2, calls_reach_the_client_and_results_come_back) {
  auto ex = std::make_shared<async_executor>(2);
  async_ec2 ec2{std::make_shared<fake_ec2>(), ex};
  run_instances_request req;
  req.image_id = "ami-1";
  req.instance_type = "p3.2xlarge";
  req.min_count = 2;
  req.instance_tags = {{"det", "pool-a"}};
  std::promise<caf::expected<std::vector<instance>>> launched;
  ec2.run_instances(req, [&](auto res) { launched.set_value(std::move(res)); });
  auto l = launched.get_future().get();
  ASSERT_TRUE(l);
  ASSERT_EQ(l->size(), 2u);
  EXPECT_EQ(l->at(0).tag("det"), "pool-a");

  std::promise<caf::expected<std::vector<instance>>> described;
  ec2.describe_instances(
      {}, [&](auto res) { described.set_value(std::move(res)); });
  EXPECT_EQ(described.get_future().get()->size(), 2u);

  std::promise<caf::expected<caf::unit_t>> tagged;
  ec2.create_tags({"i-1"}, {},
                  [&](auto res) { tagged.set_value(std::move(res)); });
  auto t = tagged.get_future().get();
  ASSERT_FALSE(t);
  EXPECT_EQ(aws_error_of(t.error()).kind, aws_error_kind::bad_request);

  std::promise<caf::expected<std::vector<spot_instance_request>>> spot;
  ec2.request_spot_instances({},
                             [&](auto res) { spot.set_value(std::move(res)); });
  auto s = spot.get_future().get();
  ASSERT_FALSE(s);
  EXPECT_EQ(aws_error_of(s.error()).kind,
            aws_error_kind::insufficient_capacity);

  std::promise<caf::expected<std::vector<spot_cancel_result>>> cancelled;
  ec2.cancel_spot_instance_requests(
      {"sir-1"}, [&](auto res) { cancelled.set_value(std::move(res)); });
  EXPECT_EQ(cancelled.get_future().get()->at(0).state, "cancelled");
}
