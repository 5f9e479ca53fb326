// apply() for the provisioners' records: launches, instances, spot requests,
// and the instance/agent link.

#include "state_fixture.hpp"

namespace det::state::test {

namespace {

class apply_instances : public state_fixture {
protected:
  void SetUp() override {
    ok(master_started{"c1", "h", 1, "v", 0});
    pool("aws", "aws");
  }

  void launch(int64_t seq, int32_t count, bool spot = false) {
    ok(instance_launch_requested{
        "aws", seq, make_client_token("c1", "aws", seq), count, spot, 1000});
  }
};

TEST_F(apply_instances, a_launch_is_outstanding_until_its_instances_are_seen) {
  launch(1, 2);
  EXPECT_EQ(outstanding_launch_count(s, "aws"), 2);
  EXPECT_EQ(s.pools.at("aws").launches.at(1).client_token, "det-c1-aws-1");
  ok(instance_pending{"i-1", "aws", 1, 1100});
  EXPECT_EQ(outstanding_launch_count(s, "aws"), 1);
  ok(instance_pending{"i-2", "aws", 1, 1100});
  EXPECT_EQ(outstanding_launch_count(s, "aws"), 0);
  EXPECT_TRUE(s.pools.at("aws").launches.empty());
  EXPECT_EQ(s.instances.at("i-1").launched_at_us, 1100);
}

TEST_F(apply_instances, a_launch_seq_that_does_not_follow_is_refused) {
  EXPECT_TRUE(
      has(refused(instance_launch_requested{"aws", 2, "t", 1, false, 0}),
          "does not follow"));
  launch(1, 1);
  EXPECT_EQ(next_launch_seq(s, "aws"), 2);
}

TEST_F(apply_instances, a_launch_in_a_pool_without_provisioner_is_refused) {
  pool("static");
  EXPECT_TRUE(
      has(refused(instance_launch_requested{"static", 1, "t", 1, false, 0}),
          "no provisioner"));
  EXPECT_TRUE(
      has(refused(instance_launch_requested{"none", 1, "t", 1, false, 0}),
          "unknown pool"));
}

TEST_F(apply_instances, a_failed_launch_is_closed_and_counted) {
  launch(1, 1);
  ok(instance_launch_failed{"aws", 1, "quota_exceeded", "VcpuLimitExceeded",
                            1200});
  const auto& p = s.pools.at("aws");
  EXPECT_TRUE(p.launches.empty());
  EXPECT_EQ(p.consecutive_launch_failures, 1);
  EXPECT_EQ(p.last_launch_error_kind, "quota_exceeded");
  EXPECT_TRUE(has(refused(instance_launch_failed{"aws", 1, "other", "", 0}),
                  "not outstanding"));
  launch(2, 1);
  ok(instance_pending{"i-1", "aws", 2, 1300});
  EXPECT_EQ(s.pools.at("aws").consecutive_launch_failures, 0);
}

TEST_F(apply_instances, an_unknown_launch_error_kind_is_refused) {
  launch(1, 1);
  EXPECT_TRUE(has(refused(instance_launch_failed{"aws", 1, "oops", "", 0}),
                  "'error_kind'"));
}

TEST_F(apply_instances, an_instance_goes_pending_running_terminating_gone) {
  launch(1, 1);
  ok(instance_pending{"i-1", "aws", 1, 1100});
  ok(instance_running{"i-1", 1200});
  EXPECT_EQ(s.instances.at("i-1").status, instance_status::running);
  EXPECT_TRUE(has(refused(instance_running{"i-1", 0}), "not pending"));
  ok(instance_terminate_requested{"i-1", "idle", 1300});
  EXPECT_EQ(s.instances.at("i-1").status, instance_status::terminating);
  EXPECT_TRUE(has(refused(instance_terminate_requested{"i-1", "idle", 0}),
                  "already terminating"));
  ok(instance_terminated{"i-1", "idle", 1400});
  EXPECT_EQ(s.instances.count("i-1"), 0u);
  EXPECT_TRUE(has(refused(instance_terminated{"i-1", "", 0}), "unknown"));
}

TEST_F(apply_instances,
       an_adopted_instance_needs_no_launch_but_a_known_one_does) {
  ok(instance_pending{"i-9", "aws", 0, 10});
  EXPECT_TRUE(
      has(refused(instance_pending{"i-9", "aws", 0, 10}), "already known"));
  EXPECT_TRUE(
      has(refused(instance_pending{"i-8", "aws", 5, 10}), "not outstanding"));
}

TEST_F(apply_instances, an_agent_on_an_instance_links_both_ways) {
  launch(1, 1);
  ok(instance_pending{"i-1", "aws", 1, 1100});
  ok(instance_running{"i-1", 1200});
  agent("i-1", 4, "aws", "i-1", 1300);
  EXPECT_EQ(s.instances.at("i-1").agent_id, "i-1");
  EXPECT_EQ(instance_idle_since(s, s.instances.at("i-1")), 1300);
  ok(agent_lost{"i-1", "instance_terminated", 1400});
  EXPECT_EQ(s.instances.at("i-1").agent_id, "");
  EXPECT_EQ(s.instances.at("i-1").agent_gone_since_us, 1400);
}

TEST_F(apply_instances, an_agent_on_an_unknown_or_taken_instance_is_refused) {
  EXPECT_TRUE(has(refused(agent_connected{"x", "aws", 1, "cpu", "i-0", 0}),
                  "unknown instance"));
  ok(instance_pending{"i-1", "aws", 0, 10});
  agent("a1", 1, "aws", "i-1");
  EXPECT_TRUE(has(refused(agent_connected{"a2", "aws", 1, "cpu", "i-1", 0}),
                  "already has agent 'a1'"));
  pool("other", "aws");
  EXPECT_TRUE(has(refused(agent_connected{"a3", "other", 1, "cpu", "i-1", 0}),
                  "belongs to pool 'aws'"));
}

TEST_F(apply_instances, a_spot_request_becomes_an_instance_when_fulfilled) {
  launch(1, 1, true);
  ok(spot_request_opened{"sir-1", "aws", 1, 1100});
  EXPECT_TRUE(s.pools.at("aws").launches.empty());
  EXPECT_EQ(s.spot_requests.count("sir-1"), 1u);
  ok(spot_request_fulfilled{"sir-1", "i-5", 1200});
  EXPECT_EQ(s.spot_requests.count("sir-1"), 0u);
  EXPECT_EQ(s.instances.at("i-5").spot_request_id, "sir-1");
  EXPECT_EQ(s.instances.at("i-5").launch_seq, 1);
  EXPECT_TRUE(
      has(refused(spot_request_fulfilled{"sir-1", "i-6", 0}), "not open"));
}

TEST_F(apply_instances, a_cancelled_spot_request_leaves_the_state) {
  ok(spot_request_opened{"sir-2", "aws", 0, 1100});
  EXPECT_TRUE(
      has(refused(spot_request_opened{"sir-2", "aws", 0, 0}), "already open"));
  ok(spot_request_cancelled{"sir-2", "price-too-low", 1200});
  EXPECT_TRUE(s.spot_requests.empty());
  EXPECT_TRUE(has(refused(spot_request_cancelled{"sir-2", "", 0}), "not open"));
}

TEST_F(apply_instances, a_spot_request_for_an_on_demand_launch_is_refused) {
  launch(1, 1, false);
  EXPECT_TRUE(has(refused(spot_request_opened{"sir-1", "aws", 1, 0}),
                  "not a spot launch"));
  launch(2, 1, true);
  EXPECT_TRUE(
      has(refused(instance_pending{"i-1", "aws", 2, 0}), "was a spot launch"));
}

} // namespace

} // namespace det::state::test

namespace det::state::test {

namespace {

class instance_ids : public state_fixture {};

// Found by the property test: an instance id came back while the agent of
// the terminated instance of that id was still reconnect-pending.
TEST_F(instance_ids, an_instance_id_an_agent_still_names_is_refused) {
  pool("aws", "aws");
  ok(instance_pending{"i-1", "aws", 0, 10});
  agent("i-1", 1, "aws", "i-1");
  ok(instance_terminated{"i-1", "spot", 20});
  EXPECT_TRUE(has(refused(instance_pending{"i-1", "aws", 0, 30}),
                  "agent 'i-1' still names instance 'i-1'"));
  ok(spot_request_opened{"sir-1", "aws", 0, 40});
  EXPECT_TRUE(
      has(refused(spot_request_fulfilled{"sir-1", "i-1", 50}), "still names"));
  ok(agent_lost{"i-1", "instance_terminated", 60});
  ok(instance_pending{"i-1", "aws", 0, 70});
}

} // namespace

} // namespace det::state::test
