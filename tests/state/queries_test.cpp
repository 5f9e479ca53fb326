// The read-only helpers the actors and det-inspect use.

#include "state_fixture.hpp"

#include <regex>

namespace det::state::test {

namespace {

class queries : public state_fixture {};

TEST(task_ids, are_upstream_shaped_and_name_their_trial) {
  auto id = task_id_of(12, 345);
  EXPECT_EQ(id, "12.00000000-0000-4000-8000-000000000159");
  // The det CLI's pattern for a whole task id.
  std::regex cli{R"(^(?:[0-9]+\.)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-)"
                 R"([0-9a-f]{4}-[0-9a-f]{12}$)"};
  EXPECT_TRUE(std::regex_match(id, cli)) << id;
  EXPECT_EQ(trial_of_task_id(id), 345);
  EXPECT_EQ(trial_of_task_id("12.00000000-0000-4000-8000-00000000015A"), 346);
  EXPECT_EQ(trial_of_task_id("7"), 7); // what this master said before
  for (const char* bad :
       {"", "0", "-1", "x", "12.", "12.00000000-0000-4000-8000-00000000015",
        "12.00000000-0000-4000-8000-0000000001590",
        "12.10000000-0000-4000-8000-000000000159",
        "12.00000000-0000-4000-8000-00000000015g",
        "a.00000000-0000-4000-8000-000000000159",
        "12.00000000-0000-4000-8000-000000000000", "9999999999999999999"})
    EXPECT_FALSE(trial_of_task_id(bad).has_value()) << bad;
}

TEST(task_ids, a_continued_trials_later_tasks_name_their_run) {
  auto base = task_id_of(12, 345);
  using run = std::pair<int64_t, size_t>;
  EXPECT_EQ(trial_run_of_task_id(base), (run{345, 0}));
  EXPECT_EQ(trial_run_of_task_id(base + "-1"), (run{345, 1}));
  EXPECT_EQ(trial_run_of_task_id(base + "-12"), (run{345, 12}));
  for (const auto& bad : {base + "-", base + "-0", base + "-x", base + "--1",
                          std::string{"-1"}, base + "-99999999999"})
    EXPECT_FALSE(trial_run_of_task_id(bad).has_value()) << bad;
}

TEST_F(queries, pending_trials_come_in_priority_then_submission_order) {
  pool();
  for (int64_t id : {1, 2, 3}) {
    experiment_submitted e;
    e.experiment_id = id;
    e.pool = "default";
    e.priority = id == 2 ? 10 : 42;
    ok(e);
  }
  trial(1, 1);
  trial(2, 3);
  trial(3, 2);
  trial(4, 1);
  std::vector<int64_t> order;
  for (const auto* t : pending_trials(s, "default"))
    order.push_back(t->id);
  EXPECT_EQ(order, (std::vector<int64_t>{3, 1, 4, 2}));
  EXPECT_TRUE(pending_trials(s, "other").empty());
}

TEST_F(queries, free_slots_are_listed_per_agent_and_pool) {
  pool();
  agent("a1", 3);
  agent("a2", 1);
  experiment(1, 2);
  trial(1, 1);
  place(1, "1.1", {{"a1", {0, 2}}});
  EXPECT_EQ(free_slot_ids(a("a1")), std::vector<int64_t>{1});
  EXPECT_EQ(used_slots(a("a1")), 2);
  EXPECT_EQ(free_slots_of_pool(s, "default"), 2);
  EXPECT_EQ(allocations_on_agent(s, "a1"), std::vector<std::string>{"1.1"});
  EXPECT_EQ(allocated_trials(s, "default").size(), 1u);
  EXPECT_EQ(live_trial_count(s, 1), 1);
  EXPECT_EQ(trials_of_experiment(s, 1).size(), 1u);
  ok(agent_disabled{"a2", false});
  EXPECT_EQ(free_slots_of_pool(s, "default"), 1);
}

TEST_F(queries, agents_past_their_reconnect_deadline_are_found) {
  pool();
  agent("a1", 1);
  agent("a2", 1);
  ok(agent_disconnected{"a1", "", 1000, 10});
  EXPECT_TRUE(agents_past_reconnect_deadline(s, 999).empty());
  EXPECT_EQ(agents_past_reconnect_deadline(s, 1000),
            std::vector<std::string>{"a1"});
}

TEST_F(queries, idle_and_never_started_instances_are_found_from_event_times) {
  ok(master_started{"c1", "h", 1, "v", 0});
  pool_configured p;
  p.pool = "aws";
  p.provider = "aws";
  p.max_idle_agent_period_s = 60;
  p.max_agent_starting_period_s = 120;
  ok(p);
  ok(instance_pending{"i-1", "aws", 0, 0});
  ok(instance_pending{"i-2", "aws", 0, 0});
  agent("i-1", 1, "aws", "i-1", 1'000'000);
  EXPECT_TRUE(long_idle_instances(s, "aws", 61'000'000).empty());
  auto idle = long_idle_instances(s, "aws", 61'000'001);
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(idle[0]->id, "i-1");
  auto stuck = instances_past_starting_period(s, "aws", 120'000'001);
  ASSERT_EQ(stuck.size(), 1u);
  EXPECT_EQ(stuck[0]->id, "i-2");
}

TEST_F(queries, client_tokens_are_stable_and_fit_ec2s_limit) {
  EXPECT_EQ(make_client_token("c1", "gpu", 7), "det-c1-gpu-7");
  EXPECT_EQ(make_client_token("c1", "gpu", 7),
            make_client_token("c1", "gpu", 7));
  auto long_token = make_client_token(std::string(80, 'x'), "gpu", 7);
  EXPECT_LE(long_token.size(), 64u);
  EXPECT_NE(long_token, make_client_token(std::string(80, 'y'), "gpu", 7));
  EXPECT_NE(long_token, make_client_token(std::string(80, 'x'), "gpu", 8));
}

TEST_F(queries, allocation_ids_are_derived_from_trial_and_run) {
  EXPECT_EQ(allocation_id_for(12, 3), "12.3");
  trial_info t;
  t.id = 4;
  t.runs = 2;
  EXPECT_EQ(next_allocation_id(t), "4.3");
}

TEST_F(queries, lookups_return_null_for_unknown_ids) {
  EXPECT_EQ(find_pool(s, "x"), nullptr);
  EXPECT_EQ(find_agent(s, "x"), nullptr);
  EXPECT_EQ(find_instance(s, "x"), nullptr);
  EXPECT_EQ(find_experiment(s, 1), nullptr);
  EXPECT_EQ(find_trial(s, 1), nullptr);
  EXPECT_EQ(trial_of_allocation(s, "1.1"), nullptr);
  EXPECT_EQ(next_launch_seq(s, "x"), 0);
}

} // namespace

} // namespace det::state::test
