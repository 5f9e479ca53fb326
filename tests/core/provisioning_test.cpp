// plan_provisioning: reconciliation of the state with a provider inventory,
// and the scale decision over it (pure code, no actors).

#include "core/provisioning.hpp"
#include "messages/errc.hpp"
#include "state/cluster_state.hpp"
#include "tests/support/applied_state.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

constexpr int64_t s_ = 1'000'000;

struct fixture : ::testing::Test, test::applied_state {

  void SetUp() override {
    pool_configured p;
    p.pool = "default";
    p.provider = "aws";
    p.slots_per_instance = 1;
    p.max_instances = 3;
    apply(p);
  }

  void launch(int64_t seq, int count, bool spot = false, int64_t at = 10 * s_) {
    apply(instance_launch_requested{
        "default", seq, "tok-" + std::to_string(seq), count, spot, at});
  }

  provisioning_input with(std::vector<provider_instance> xs,
                          std::vector<provider_spot_request> rs = {},
                          int64_t taken = 100 * s_) {
    provisioning_input in;
    provider_inventory inv;
    inv.taken_at_us = taken;
    inv.instances = std::move(xs);
    inv.spot_requests = std::move(rs);
    in.inventory = std::move(inv);
    in.consistency_grace_us = 30 * s_;
    return in;
  }
};

TEST_F(fixture,
       min_instances_launch_and_outstanding_launches_count_as_starting) {
  pool_configured p = s.pools.at("default").config;
  p.min_instances = 2;
  apply(p);
  auto plan = plan_provisioning(s, "default", 20 * s_, provisioning_input{});
  EXPECT_EQ(plan.launch, 2);
  EXPECT_EQ(plan.next_seq, 1);
  launch(1, 2);
  plan = plan_provisioning(s, "default", 20 * s_, provisioning_input{});
  EXPECT_EQ(plan.launch, 0)
      << "the launch in flight already covers the minimum";
}

TEST_F(fixture,
       a_crash_after_the_cloud_call_is_healed_by_adoption_not_relaunch) {
  launch(1, 1);
  // The instance exists with the launch's token; no call is in flight.
  auto plan = plan_provisioning(s, "default", 20 * s_,
                                with({{"i-1", "running", "tok-1", ""}}));
  ASSERT_EQ(plan.adopt.size(), 1u);
  EXPECT_EQ(plan.adopt[0].id, "i-1");
  EXPECT_EQ(plan.adopt[0].launch_seq, 1);
  EXPECT_TRUE(plan.adopt[0].running);
  EXPECT_TRUE(plan.reissues.empty());
  EXPECT_TRUE(plan.unknown_instances.empty());
  // While the call is in flight its own answer records the instance.
  auto in = with({{"i-1", "running", "tok-1", ""}});
  in.in_flight = {1};
  plan = plan_provisioning(s, "default", 20 * s_, in);
  EXPECT_TRUE(plan.adopt.empty());
  EXPECT_TRUE(plan.reissues.empty());
  EXPECT_TRUE(plan.unknown_instances.empty()) << "nor is it an orphan";
}

TEST_F(fixture,
       an_unanswered_launch_without_an_instance_is_reissued_with_its_token) {
  launch(1, 2);
  auto plan = plan_provisioning(s, "default", 20 * s_, with({}));
  ASSERT_EQ(plan.reissues.size(), 1u);
  EXPECT_EQ(plan.reissues[0].client_token, "tok-1");
  EXPECT_EQ(plan.reissues[0].count, 2);
}

// Found by the chaos suite (CHAOS_SEED=205956344): the master died between
// a 2-instance local launch and its record; after the restart one instance
// was adopted and the rest re-issued with count 1, which started the
// adopted instance's id again, was refused as already known, and repeated
// on every tick (duplicate agents, a pool that never idled).
TEST_F(fixture, a_launch_partly_found_after_a_crash_is_closed_not_reissued) {
  launch(1, 2);
  auto plan = plan_provisioning(s, "default", 20 * s_,
                                with({{"i-1", "running", "tok-1", ""}}));
  ASSERT_EQ(plan.adopt.size(), 1u);
  EXPECT_TRUE(plan.reissues.empty());
  ASSERT_EQ(plan.partial_launches.size(), 1u);
  EXPECT_EQ(plan.partial_launches[0], (std::pair<int64_t, int>{1, 1}));
  // Recorded as the actor does: the adoption, then the launch closed.
  apply(instance_pending{"i-1", "default", 1, 20 * s_});
  apply(instance_launch_failed{"default", 1, "partial", "1 never appeared",
                               20 * s_});
  plan = plan_provisioning(s, "default", 21 * s_,
                           with({{"i-1", "running", "tok-1", ""}}));
  EXPECT_TRUE(plan.reissues.empty());
  EXPECT_TRUE(plan.partial_launches.empty());
  EXPECT_TRUE(plan.adopt.empty());
}

TEST_F(fixture, failed_launches_of_the_log_are_in_the_plan_for_the_backoff) {
  launch(1, 1);
  apply(instance_launch_failed{"default", 1, "insufficient_capacity", "ICE",
                               15 * s_});
  launch(2, 1);
  apply(
      instance_launch_failed{"default", 2, "quota_exceeded", "vCPU", 25 * s_});
  auto plan = plan_provisioning(s, "default", 30 * s_, with({}));
  EXPECT_EQ(plan.launch_failures, 2);
  EXPECT_EQ(plan.last_launch_error_at_us, 25 * s_);
  EXPECT_TRUE(plan.reissues.empty()) << "failed launches are not outstanding";
}

TEST_F(fixture, unknown_and_foreign_launch_tokens_are_unknown_never_adopted) {
  launch(1, 1);
  apply(instance_pending{"i-1", "default", 1, 11 * s_});
  auto plan = plan_provisioning(s, "default", 200 * s_,
                                with({{"i-1", "running", "tok-1", ""},
                                      {"i-2", "running", "tok-9", ""},
                                      {"i-3", "pending", "", ""}}));
  EXPECT_TRUE(plan.adopt.empty());
  EXPECT_EQ(plan.unknown_instances, (std::vector<std::string>{"i-2", "i-3"}));
  EXPECT_EQ(plan.now_running, std::vector<std::string>{"i-1"});
}

TEST_F(fixture, missing_instances_are_gone_only_after_the_consistency_grace) {
  launch(1, 2);
  apply(instance_pending{"i-1", "default", 1, 11 * s_});
  apply(instance_pending{"i-2", "default", 1, 90 * s_});
  auto plan = plan_provisioning(s, "default", 100 * s_, with({}, {}, 100 * s_));
  ASSERT_EQ(plan.gone.size(), 1u);
  EXPECT_EQ(plan.gone[0].first, "i-1");
  EXPECT_EQ(plan.gone[0].second, "terminated_elsewhere");
}

TEST_F(
    fixture,
    a_reclaimed_spot_instance_loses_its_disconnected_agent_as_spot_reclaimed) {
  launch(1, 1, true);
  apply(spot_request_opened{"sir-1", "default", 1, 11 * s_});
  apply(spot_request_fulfilled{"sir-1", "i-1", 12 * s_});
  apply(agent_connected{"i-1", "default", 1, "cpu", "", 13 * s_});
  apply(agent_disconnected{"i-1", "closed", 200 * s_, 50 * s_});
  auto plan = plan_provisioning(s, "default", 100 * s_,
                                with({{"i-1", "terminated", "", "sir-1"}}));
  ASSERT_EQ(plan.gone.size(), 1u);
  EXPECT_EQ(plan.gone[0].second, "spot_reclaimed");
  EXPECT_EQ(plan.reclaimed_agents, std::vector<std::string>{"i-1"});
}

TEST_F(fixture,
       open_spot_requests_are_fulfilled_closed_or_cancelled_without_demand) {
  launch(1, 3, true);
  apply(spot_request_opened{"sir-1", "default", 1, 11 * s_});
  apply(spot_request_opened{"sir-2", "default", 1, 11 * s_});
  apply(spot_request_opened{"sir-3", "default", 1, 11 * s_});
  auto plan = plan_provisioning(s, "default", 100 * s_,
                                with({}, {{"sir-1", "active", "i-1", "tok-1"},
                                          {"sir-2", "cancelled", "", "tok-1"},
                                          {"sir-3", "open", "", "tok-1"}}));
  EXPECT_EQ(plan.fulfilled, (std::vector<std::pair<std::string, std::string>>{
                                {"sir-1", "i-1"}}));
  ASSERT_EQ(plan.spot_closed.size(), 1u);
  EXPECT_EQ(plan.spot_closed[0].first, "sir-2");
  // Nothing waits: the open request is cancelled (min_instances is 0).
  EXPECT_NE(
      std::find(plan.cancel_spot.begin(), plan.cancel_spot.end(), "sir-3"),
      plan.cancel_spot.end());
  EXPECT_TRUE(plan.unknown_instances.empty());
}

TEST_F(fixture,
       a_tagged_spot_request_of_no_known_launch_is_unknown_with_its_instance) {
  auto plan = plan_provisioning(
      s, "default", 100 * s_, with({}, {{"sir-9", "active", "i-9", "tok-7"}}));
  EXPECT_EQ(plan.unknown_spot_requests, std::vector<std::string>{"sir-9"});
  EXPECT_EQ(plan.unknown_instances, std::vector<std::string>{"i-9"});
}

TEST(provisioning,
     a_pool_with_nothing_pending_launches_only_what_min_instances_asks) {
  state::cluster_state s;
  recorded_event meta;
  pool_configured p;
  p.pool = "default";
  p.provider = "local";
  p.slots_per_instance = 1;
  p.max_instances = 2;
  meta.position = 1;
  ASSERT_FALSE(state::apply(s, meta, p));
  auto plan = plan_provisioning(s, "default", 1000000, provisioning_input{});
  EXPECT_EQ(plan.launch, 0); // nothing pending
  EXPECT_EQ(plan.next_seq, 1);
  p.min_instances = 1;
  meta.position = 2;
  ASSERT_FALSE(state::apply(s, meta, p));
  plan = plan_provisioning(s, "default", 1000000, provisioning_input{});
  EXPECT_EQ(plan.launch, 1);
}

TEST_F(fixture, a_queued_task_launches_an_instance_as_a_trial_does) {
  task_launched t;
  t.task_id = "0123abcd-0000-4000-8000-000000000000";
  t.task_type = "NOTEBOOK";
  t.owner = "admin";
  t.pool = "default";
  t.slots = 1;
  t.at_us = 5 * s_;
  apply(t);
  auto plan = plan_provisioning(s, "default", 20 * s_, provisioning_input{});
  EXPECT_EQ(plan.launch, 1);
  // Another pool's task, or one of no slots, buys nothing here.
  pool_configured other = s.pools.at("default").config;
  other.pool = "other";
  apply(other);
  t.task_id = "0123abcd-0000-4000-8000-000000000001";
  t.pool = "other";
  apply(t);
  t.task_id = "0123abcd-0000-4000-8000-000000000002";
  t.pool = "default";
  t.slots = 0;
  t.task_type = "TENSORBOARD";
  apply(t);
  plan = plan_provisioning(s, "default", 20 * s_, provisioning_input{});
  EXPECT_EQ(plan.launch, 1);
  apply(task_exited{"0123abcd-0000-4000-8000-000000000000", "", "killed", 0,
                    "killed: by admin", 21 * s_});
  plan = plan_provisioning(s, "default", 22 * s_, provisioning_input{});
  EXPECT_EQ(plan.launch, 0);
}

TEST_F(fixture,
       an_agent_that_connected_once_is_never_starting_again_when_it_drops) {
  launch(1, 1);
  apply(instance_pending{"i-1", "default", 1, 11 * s_});
  apply(agent_connected{"i-1", "default", 1, "cpu", "i-1", 13 * s_});
  // The connection drops for a moment, long after the starting period.
  int64_t late = 13 * s_ + 2000 * s_;
  apply(agent_disconnected{"i-1", "closed", late + 25 * s_, late});
  auto in = scale_input_of(s, "default", late + s_);
  ASSERT_EQ(in.instances.size(), 1u);
  ASSERT_TRUE(in.instances[0].disconnected_since.has_value())
      << "a disconnected agent's instance counted as still starting";
  auto plan =
      plan_provisioning(s, "default", late + s_,
                        with({{"i-1", "running", "tok-1", ""}}, {}, late + s_));
  for (const auto& [id, why] : plan.terminate)
    EXPECT_NE(why, "starting_timeout") << id;
  EXPECT_TRUE(plan.terminate.empty());
}

// An agent wrote exits into its instance's tags before stopping it: the
// returning master records only those of live allocations on that
// instance's agent. A claim about an allocation on another instance, one
// that does not exist, or a tag the decoder refused is reported, not
// recorded; claims of an instance that is still running are not read.
TEST_F(fixture, exits_in_a_gone_instances_tags_count_only_for_its_allocations) {
  const std::string a = "0123abcd-0000-4000-8000-00000000000a";
  const std::string b = "0123abcd-0000-4000-8000-00000000000b";
  launch(1, 2);
  apply(instance_pending{"i-1", "default", 1, 11 * s_});
  apply(instance_pending{"i-2", "default", 1, 11 * s_});
  apply(agent_connected{"i-1", "default", 1, "cpu", "i-1", 13 * s_});
  apply(agent_connected{"i-2", "default", 1, "cpu", "i-2", 13 * s_});
  for (const auto& id : {a, b}) {
    task_launched t;
    t.task_id = id;
    t.task_type = "COMMAND";
    t.owner = "admin";
    t.pool = "default";
    t.at_us = 14 * s_;
    apply(t);
  }
  apply(task_placed{a, a + ".1", "i-1", {0}, 15 * s_});
  apply(task_placed{b, b + ".1", "i-2", {0}, 15 * s_});
  apply(agent_disconnected{"i-1", "closed", 900 * s_, 50 * s_});
  // i-1 is gone; i-2 still runs (its claims are not read).
  auto in = with(
      {{"i-1", "terminated", "tok-1", ""}, {"i-2", "running", "tok-1", ""}});
  in.inventory->exit_claims["i-1"] = {
      {a + ".1", 0, 60 * s_}, {b + ".1", 1, 60 * s_}, {"ghost.1", 2, 60 * s_}};
  in.inventory->refused_exit_tags["i-1"] = {
      "exit tag: value of det:exit:x.1: not <exit code>@<time>"};
  in.inventory->exit_claims["i-2"] = {{b + ".1", 0, 60 * s_}};
  auto plan = plan_provisioning(s, "default", 100 * s_, in);
  ASSERT_EQ(plan.tagged_exits.size(), 1u);
  EXPECT_EQ(plan.tagged_exits[0].first, "i-1");
  EXPECT_EQ(plan.tagged_exits[0].second.allocation_id, a + ".1");
  EXPECT_EQ(plan.tagged_exits[0].second.exit_code, 0);
  ASSERT_EQ(plan.refused_exit_tags.size(), 3u);
  EXPECT_NE(plan.refused_exit_tags[0].find("det:exit:x.1"), std::string::npos);
  EXPECT_NE(plan.refused_exit_tags[1].find(b
                                           + ".1: not an allocation on "
                                             "this instance's agent"),
            std::string::npos);
  EXPECT_NE(plan.refused_exit_tags[2].find("ghost.1"), std::string::npos);
  ASSERT_EQ(plan.gone.size(), 1u);
  EXPECT_EQ(plan.gone[0].first, "i-1");
  // Once the allocation has ended (the exit recorded), the same tag is
  // refused: it is no longer live.
  apply(task_exited{a, a + ".1", "completed", 0, "", 101 * s_});
  in.inventory->refused_exit_tags.clear();
  in.inventory->exit_claims["i-1"] = {{a + ".1", 0, 60 * s_}};
  plan = plan_provisioning(s, "default", 102 * s_, in);
  EXPECT_TRUE(plan.tagged_exits.empty());
  ASSERT_EQ(plan.refused_exit_tags.size(), 1u);
}

} // namespace
} // namespace det
