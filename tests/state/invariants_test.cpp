// check_invariants() catches each kind of breakage. Each test breaks a sound
// state by hand (apply() never would) and looks for the sentence.

#include "state_fixture.hpp"

namespace det::state::test {

namespace {

class invariants : public state_fixture {
protected:
  void SetUp() override {
    busy_cluster();
    ASSERT_TRUE(check_invariants(s).empty());
  }

  /// Whether some broken invariant mentions `needle`.
  ::testing::AssertionResult reports(const std::string& needle) {
    auto broken = check_invariants(s);
    for (const auto& b : broken)
      if (has(b, needle))
        return ::testing::AssertionSuccess();
    auto r = ::testing::AssertionFailure()
             << "no invariant mentions '" << needle << "'; got:";
    for (const auto& b : broken)
      r << "\n  " << b;
    return r;
  }

  trial_info& mt(int64_t id) { return s.trials.at(id); }
  agent_info& ma(const std::string& id) { return s.agents.at(id); }
};

TEST_F(invariants, a_slot_used_by_two_trials_is_reported) {
  // Trial 4 holds i-1 slot 2; make trial 1 claim it too.
  mt(1).allocation->assignments[1] = {"i-1", {2}};
  EXPECT_TRUE(reports("slot 2 of agent 'i-1' is used twice"));
}

TEST_F(invariants, an_allocation_with_the_wrong_slot_count_is_reported) {
  mt(1).allocation->assignments.pop_back();
  ma("a2").slots[1].clear();
  ma("a2").idle_since_us = 1;
  EXPECT_TRUE(reports("holds 1 slots, not 2"));
}

TEST_F(invariants, an_agent_slot_its_trial_does_not_list_is_reported) {
  ma("a1").slots[1] = "1.1";
  EXPECT_TRUE(reports("slot 1 of agent 'a1' is used by allocation '1.1' of "
                      "trial 1, which does not list it"));
}

TEST_F(invariants, a_slot_used_by_an_unknown_allocation_is_reported) {
  ma("a1").slots[1] = "77.1";
  EXPECT_TRUE(reports("which no trial holds"));
}

TEST_F(invariants, a_trial_slot_the_agent_does_not_give_is_reported) {
  ma("a2").slots[1].clear();
  EXPECT_TRUE(reports("lists slot 1 of agent 'a2', which the agent does not "
                      "give to it"));
}

TEST_F(invariants, an_allocation_on_an_unknown_agent_is_reported) {
  s.agents.erase("a2");
  EXPECT_TRUE(reports("holds slots of unknown agent 'a2'"));
}

TEST_F(invariants, a_status_that_disagrees_with_the_allocation_is_reported) {
  mt(3).status = trial_status::running;
  EXPECT_TRUE(reports("trial 3 is running but holds no allocation"));
  mt(1).status = trial_status::exited;
  EXPECT_TRUE(reports("trial 1 is exited but holds an allocation"));
}

TEST_F(invariants, a_stale_allocation_index_is_reported) {
  s.allocations["9.9"] = 3;
  EXPECT_TRUE(reports("allocation index names '9.9'"));
  s.allocations.erase("1.1");
  EXPECT_TRUE(reports("missing from the allocation index"));
}

TEST_F(invariants, an_allocation_not_named_after_its_run_is_reported) {
  mt(1).runs = 2;
  EXPECT_TRUE(reports("is not named after run 2"));
}

TEST_F(invariants, a_one_sided_instance_agent_link_is_reported) {
  s.instances.at("i-1").agent_id = "a1";
  EXPECT_TRUE(reports("instance 'i-1' names agent 'a1'"));
  EXPECT_TRUE(reports("agent 'i-1' runs on instance 'i-1', which does not "
                      "name it"));
}

TEST_F(invariants, counters_that_disagree_with_the_position_are_reported) {
  ++s.position;
  EXPECT_TRUE(reports("applied_by_type sums to"));
  s.masters_started = 5;
  EXPECT_TRUE(reports("masters_started is 5"));
}

TEST_F(invariants, an_ended_experiment_with_a_live_trial_is_reported) {
  s.experiments.at(1).status = experiment_status::completed;
  EXPECT_TRUE(reports("experiment 1 is COMPLETED but trial 1 is running"));
}

TEST_F(invariants, a_trial_and_experiment_that_disown_each_other_are_reported) {
  s.experiments.at(1).trial_ids.push_back(4);
  EXPECT_TRUE(reports("a trial that is not its own"));
  s.experiments.at(2).trial_ids.clear();
  EXPECT_TRUE(reports("trial 5 is not listed by its experiment"));
}

TEST_F(invariants, too_many_restarts_for_a_live_trial_are_reported) {
  mt(3).restarts = 4;
  EXPECT_TRUE(reports("trial 3 has 4 restarts"));
}

TEST_F(invariants, idle_since_on_a_busy_agent_is_reported) {
  ma("a1").idle_since_us = 5;
  EXPECT_TRUE(reports("agent 'a1' has idle_since if and only if"));
}

TEST_F(invariants, a_connected_agent_with_a_reconnect_deadline_is_reported) {
  ma("a1").reconnect_deadline_us = 5;
  EXPECT_TRUE(reports("agent 'a1' is connected but its reconnect deadline"));
}

TEST_F(invariants, records_in_unknown_pools_are_reported) {
  ma("a1").pool = "gone";
  EXPECT_TRUE(reports("agent 'a1' is in unknown pool 'gone'"));
  s.instances.at("i-2").pool = "gone";
  EXPECT_TRUE(reports("instance 'i-2' is in unknown pool 'gone'"));
}

TEST_F(invariants, an_inconsistent_outstanding_launch_is_reported) {
  s.pools.at("aws").launches.at(1).seen = 2;
  EXPECT_TRUE(reports("launch 1 of pool 'aws'"));
}

} // namespace

} // namespace det::state::test
