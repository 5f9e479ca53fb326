// apply() for experiments: submission and the state machine.

#include "state_fixture.hpp"

namespace det::state::test {

namespace {

class apply_experiments : public state_fixture {
protected:
  void SetUp() override { pool(); }

  void change(int64_t id, const std::string& to) {
    ok(experiment_state_changed{id, to, "", 10});
  }

  std::string refuse_change(int64_t id, const std::string& to) {
    return refused(experiment_state_changed{id, to, "", 10});
  }
};

TEST_F(apply_experiments, a_submitted_experiment_is_active_with_its_config) {
  experiment(7, 2, 3);
  const auto& e = s.experiments.at(7);
  EXPECT_EQ(e.status, experiment_status::active);
  EXPECT_EQ(e.slots_per_trial, 2);
  EXPECT_EQ(e.max_restarts, 3);
  EXPECT_EQ(e.config["searcher"]["metric"], "loss");
  EXPECT_EQ(next_experiment_id(s), 8);
}

TEST_F(apply_experiments, a_duplicate_or_misplaced_submission_is_refused) {
  experiment(1);
  experiment_submitted again;
  again.experiment_id = 1;
  again.pool = "default";
  EXPECT_TRUE(has(refused(again), "already exists"));
  again.experiment_id = 2;
  again.pool = "nope";
  EXPECT_TRUE(has(refused(again), "unknown pool"));
  again.experiment_id = 0;
  again.pool = "default";
  EXPECT_TRUE(has(refused(again), "positive"));
  again.experiment_id = 3;
  again.slots_per_trial = 0;
  EXPECT_TRUE(has(refused(again), "'slots_per_trial'"));
}

TEST_F(apply_experiments, active_and_paused_toggle) {
  experiment(1);
  change(1, "PAUSED");
  EXPECT_EQ(s.experiments.at(1).status, experiment_status::paused);
  EXPECT_TRUE(has(refuse_change(1, "PAUSED"), "cannot go from PAUSED"));
  change(1, "ACTIVE");
  EXPECT_TRUE(has(refuse_change(1, "ACTIVE"), "cannot go from ACTIVE"));
}

TEST_F(apply_experiments, stopping_states_escalate_and_end_in_a_terminal_one) {
  experiment(1);
  change(1, "STOPPING_COMPLETED");
  EXPECT_TRUE(has(refuse_change(1, "ACTIVE"), "cannot go"));
  EXPECT_TRUE(has(refuse_change(1, "PAUSED"), "cannot go"));
  change(1, "STOPPING_KILLED");
  change(1, "CANCELED");
  EXPECT_TRUE(has(refuse_change(1, "ACTIVE"), "cannot go from CANCELED"));
  EXPECT_TRUE(has(refuse_change(1, "ERROR"), "cannot go from CANCELED"));
}

TEST_F(apply_experiments, an_experiment_cannot_end_while_a_trial_lives) {
  experiment(1);
  trial(1, 1);
  EXPECT_TRUE(has(refuse_change(1, "COMPLETED"), "while trial 1 is pending"));
  ok(trial_canceled{1, "experiment canceled", 20});
  change(1, "COMPLETED");
}

TEST_F(apply_experiments, an_unknown_state_or_experiment_is_refused) {
  experiment(1);
  EXPECT_TRUE(has(refuse_change(1, "DELETED"), "'state'"));
  EXPECT_TRUE(has(refuse_change(5, "PAUSED"), "unknown experiment 5"));
}

TEST_F(apply_experiments, searcher_state_is_kept_as_given_until_the_end) {
  experiment(1);
  ok(experiment_searcher_updated{1, {{"rungs", {1, 2}}}, 0.5});
  EXPECT_EQ(s.experiments.at(1).searcher_state["rungs"][1], 2);
  EXPECT_DOUBLE_EQ(s.experiments.at(1).progress, 0.5);
  EXPECT_TRUE(
      has(refused(experiment_searcher_updated{1, {}, 1.5}), "'progress'"));
  change(1, "COMPLETED");
  EXPECT_TRUE(
      has(refused(experiment_searcher_updated{1, {}, 1.0}), "has ended"));
}

} // namespace

} // namespace det::state::test
