// apply() for the cluster, pools and agents, and the envelope checks every
// event goes through.

#include "state_fixture.hpp"

namespace det::state::test {

namespace {

class apply_agents : public state_fixture {};

TEST_F(apply_agents, an_event_at_a_position_that_does_not_follow_is_refused) {
  recorded_event meta;
  meta.position = 2;
  auto before = s;
  auto err = apply(s, meta, master_started{"c1", "h", 1, "v", 0});
  EXPECT_EQ(code_of(err), errc::invalid_event);
  EXPECT_TRUE(has(render(err), "position 2")) << render(err);
  EXPECT_TRUE(has(render(err), "does not follow position 0")) << render(err);
  EXPECT_TRUE(s == before);
}

TEST_F(apply_agents, an_event_in_the_wrong_stream_is_refused) {
  recorded_event meta;
  meta.position = 1;
  meta.stream = "agent/x";
  auto err = apply(s, meta, master_started{"c1", "h", 1, "v", 0});
  EXPECT_TRUE(has(render(err), "belongs to cluster")) << render(err);
}

TEST_F(apply_agents, a_stored_event_is_decoded_and_applied) {
  recorded_event rec;
  rec.position = 1;
  rec.stream = "pool/p";
  rec.body = {"pool_configured", 1, R"({"pool":"p"})"};
  ASSERT_FALSE(apply(s, rec));
  EXPECT_EQ(s.position, 1);
  EXPECT_EQ(s.applied_by_type.at("pool_configured"), 1);
  EXPECT_EQ(s.pools.count("p"), 1u);
}

TEST_F(apply_agents, an_event_that_fails_validation_is_refused_before_apply) {
  auto msg = refused(agent_connected{"a1", "default", -1, "cuda", "", 0});
  EXPECT_TRUE(has(msg, "'slots'")) << msg;
}

TEST_F(apply_agents, master_started_records_the_cluster_and_refuses_another) {
  ok(master_started{"c1", "h", 1, "v", 10});
  ok(master_started{"c1", "h", 2, "v", 20});
  EXPECT_EQ(s.cluster_id, "c1");
  EXPECT_EQ(s.masters_started, 2);
  EXPECT_TRUE(has(refused(master_started{"c2", "h", 3, "v", 30}), "'c1'"));
}

TEST_F(apply_agents, pool_configured_creates_then_updates_a_pool) {
  pool("gpu", "aws");
  pool_configured again;
  again.pool = "gpu";
  again.provider = "aws";
  again.max_instances = 9;
  ok(again);
  EXPECT_EQ(s.pools.at("gpu").config.max_instances, 9);
}

TEST_F(apply_agents, a_pool_configuration_that_does_not_validate_is_refused) {
  pool_configured p;
  p.pool = "gpu";
  p.min_instances = 3;
  p.max_instances = 1;
  EXPECT_TRUE(has(refused(p), "'max_instances'"));
  p.max_instances = 3;
  p.scheduler = "round_robin";
  EXPECT_TRUE(has(refused(p), "'scheduler'"));
  EXPECT_TRUE(s.pools.empty());
}

TEST_F(apply_agents, a_connected_agent_has_free_slots_and_is_idle) {
  pool();
  agent("a1", 4, "default", "", 500);
  EXPECT_EQ(a("a1").slots.size(), 4u);
  EXPECT_EQ(free_slots(a("a1")), 4);
  EXPECT_EQ(a("a1").idle_since_us, 500);
  EXPECT_TRUE(schedulable(a("a1")));
}

TEST_F(apply_agents, an_agent_of_an_unknown_pool_is_refused) {
  EXPECT_TRUE(has(refused(agent_connected{"a1", "nope", 1, "cpu", "", 0}),
                  "unknown pool 'nope'"));
}

TEST_F(apply_agents, a_second_connect_of_a_connected_agent_is_refused) {
  pool();
  agent("a1", 2);
  EXPECT_TRUE(has(refused(agent_connected{"a1", "default", 2, "cuda", "", 0}),
                  "already connected"));
}

TEST_F(apply_agents, a_disconnected_agent_keeps_its_slots_until_it_reconnects) {
  pool();
  agent("a1", 2);
  experiment(1);
  trial(1, 1);
  place(1, "1.1", {{"a1", {0}}});
  ok(agent_disconnected{"a1", "closed", 25'000'000, 1000});
  EXPECT_EQ(a("a1").status, agent_status::disconnected);
  EXPECT_EQ(a("a1").reconnect_deadline_us, 25'000'000);
  EXPECT_FALSE(schedulable(a("a1")));
  EXPECT_EQ(a("a1").slots[0], "1.1");
  ok(agent_connected{"a1", "default", 2, "cuda", "", 2000});
  EXPECT_EQ(a("a1").status, agent_status::connected);
  EXPECT_EQ(a("a1").reconnect_deadline_us, 0);
  EXPECT_EQ(t(1).status, trial_status::assigned);
}

TEST_F(apply_agents, a_reconnect_with_other_slots_is_refused) {
  pool();
  agent("a1", 2);
  ok(agent_disconnected{"a1", "closed", 100, 50});
  EXPECT_TRUE(has(refused(agent_connected{"a1", "default", 3, "cuda", "", 0}),
                  "another pool, slots or instance"));
}

TEST_F(apply_agents,
       a_disconnect_of_an_unknown_or_disconnected_agent_is_refused) {
  pool();
  EXPECT_TRUE(has(refused(agent_disconnected{"a1", "", 10, 0}), "unknown"));
  agent("a1", 1);
  ok(agent_disconnected{"a1", "", 10, 0});
  EXPECT_TRUE(
      has(refused(agent_disconnected{"a1", "", 10, 0}), "not connected"));
}

TEST_F(apply_agents, a_reconnect_deadline_before_the_disconnect_is_refused) {
  pool();
  agent("a1", 1);
  EXPECT_TRUE(has(refused(agent_disconnected{"a1", "", 10, 20}), "deadline"));
}

TEST_F(apply_agents, a_lost_agent_ends_its_allocations_without_a_restart) {
  pool();
  agent("a1", 2);
  agent("a2", 2);
  experiment(1, 4);
  trial(1, 1);
  place(1, "1.1", {{"a1", {0, 1}}, {"a2", {0, 1}}});
  ok(agent_lost{"a1", "reconnect_timeout", 9000});
  EXPECT_EQ(s.agents.count("a1"), 0u);
  EXPECT_EQ(t(1).status, trial_status::exited);
  EXPECT_EQ(t(1).last_exit_reason, "agent_lost");
  EXPECT_EQ(t(1).restarts, 0);
  EXPECT_FALSE(t(1).allocation);
  EXPECT_EQ(free_slots(a("a2")), 2);
  EXPECT_EQ(a("a2").idle_since_us, 9000);
  EXPECT_TRUE(s.allocations.empty());
}

TEST_F(apply_agents, a_spot_reclaimed_agent_ends_its_trials_as_spot_reclaimed) {
  pool();
  agent("a1", 1);
  experiment(1);
  trial(1, 1);
  place(1, "1.1", {{"a1", {0}}});
  ok(agent_lost{"a1", "spot_reclaimed", 9000});
  EXPECT_EQ(t(1).last_exit_reason, "spot_reclaimed");
  EXPECT_EQ(t(1).restarts, 0);
}

TEST_F(apply_agents, losing_an_unknown_agent_is_refused) {
  EXPECT_TRUE(has(refused(agent_lost{"ghost", "shut_down", 0}), "'ghost'"));
}

TEST_F(apply_agents, a_disabled_agent_takes_no_new_work_until_enabled) {
  pool();
  agent("a1", 1);
  experiment(1);
  trial(1, 1);
  ok(agent_disabled{"a1", true});
  EXPECT_FALSE(a("a1").enabled);
  EXPECT_TRUE(a("a1").draining);
  EXPECT_TRUE(
      has(refused(placement(1, "1.1", {{"a1", {0}}})), "takes no new work"));
  ok(agent_enabled{"a1"});
  EXPECT_TRUE(a("a1").enabled);
  EXPECT_FALSE(a("a1").draining);
  place(1, "1.1", {{"a1", {0}}});
}

TEST_F(apply_agents, enabling_an_enabled_or_disconnected_agent_is_refused) {
  pool();
  agent("a1", 1);
  EXPECT_TRUE(has(refused(agent_enabled{"a1"}), "already enabled"));
  ok(agent_disconnected{"a1", "", 10, 0});
  EXPECT_TRUE(has(refused(agent_disabled{"a1", false}), "disconnected"));
  EXPECT_TRUE(has(refused(agent_enabled{"a1"}), "disconnected"));
  EXPECT_TRUE(has(refused(agent_enabled{"zz"}), "unknown"));
}

} // namespace

} // namespace det::state::test
