// apply() for trials: creation, placement (gang, slot checks), progress,
// checkpoints, metrics, exits and what each exit reason means for restarts.

#include "state_fixture.hpp"

namespace det::state::test {

namespace {

class apply_trials : public state_fixture {
protected:
  void SetUp() override {
    pool();
    agent("a1", 2);
    agent("a2", 2);
    experiment(1, 2, 1);
    trial(1, 1);
  }

  void exit(int64_t trial, const std::string& alloc, const std::string& why,
            int32_t code = 0) {
    ok(trial_exited{trial, alloc, code, why, 900});
  }
};

TEST_F(apply_trials, a_created_trial_is_pending_and_listed_by_its_experiment) {
  EXPECT_EQ(t(1).status, trial_status::pending);
  EXPECT_EQ(t(1).hparams["lr"], 0.1);
  EXPECT_EQ(t(1).request_id, "r1");
  EXPECT_EQ(s.experiments.at(1).trial_ids, std::vector<int64_t>{1});
  EXPECT_EQ(next_trial_id(s), 2);
}

TEST_F(apply_trials, a_trial_of_an_unknown_or_stopping_experiment_is_refused) {
  EXPECT_TRUE(has(refused(trial_created{2, 9, nlohmann::json::object(), "", 0}),
                  "unknown experiment 9"));
  EXPECT_TRUE(has(refused(trial_created{1, 1, nlohmann::json::object(), "", 0}),
                  "already exists"));
  ok(experiment_state_changed{1, "STOPPING_CANCELED", "", 0});
  EXPECT_TRUE(has(refused(trial_created{2, 1, nlohmann::json::object(), "", 0}),
                  "STOPPING_CANCELED"));
}

TEST_F(apply_trials, a_placed_trial_holds_exactly_its_slots) {
  place(1, "1.1", {{"a1", {1}}, {"a2", {0}}});
  EXPECT_EQ(t(1).status, trial_status::assigned);
  EXPECT_EQ(t(1).runs, 1);
  EXPECT_EQ(a("a1").slots[1], "1.1");
  EXPECT_EQ(a("a2").slots[0], "1.1");
  EXPECT_FALSE(a("a1").idle_since_us);
  EXPECT_EQ(s.allocations.at("1.1"), 1);
  EXPECT_EQ(trial_of_allocation(s, "1.1"), &t(1));
}

TEST_F(apply_trials, a_placement_with_the_wrong_slot_count_is_refused) {
  EXPECT_TRUE(has(refused(placement(1, "1.1", {{"a1", {0}}})),
                  "has 1 slots, the trial needs 2"));
  EXPECT_TRUE(has(refused(placement(1, "1.1", {{"a1", {0, 1}}, {"a2", {0}}})),
                  "has 3 slots"));
}

TEST_F(apply_trials, a_placement_on_used_missing_or_repeated_slots_is_refused) {
  place(1, "1.1", {{"a1", {0, 1}}});
  trial(2, 1);
  EXPECT_TRUE(has(refused(placement(2, "2.1", {{"a1", {0}}, {"a2", {0}}})),
                  "is used by '1.1'"));
  EXPECT_TRUE(
      has(refused(placement(2, "2.1", {{"a2", {0, 0}}})), "assigned twice"));
  EXPECT_TRUE(
      has(refused(placement(2, "2.1", {{"a2", {0, 7}}})), "has no slot 7"));
  EXPECT_TRUE(has(refused(placement(2, "2.1", {{"zz", {0, 1}}})),
                  "unknown agent 'zz'"));
  EXPECT_TRUE(has(refused(placement(2, "2.1", {{"a2", {0}}, {"a2", {1}}})),
                  "assigned twice"));
}

TEST_F(apply_trials, a_placement_needs_the_derived_allocation_id) {
  EXPECT_TRUE(
      has(refused(placement(1, "x", {{"a1", {0, 1}}})), "should be '1.1'"));
}

TEST_F(apply_trials,
       a_placement_outside_the_pool_or_on_a_disconnected_agent_is_refused) {
  pool("other");
  agent("b1", 2, "other");
  EXPECT_TRUE(has(refused(placement(1, "1.1", {{"b1", {0, 1}}})),
                  "is in pool 'other'"));
  ok(agent_disconnected{"a1", "", 100, 0});
  EXPECT_TRUE(
      has(refused(placement(1, "1.1", {{"a1", {0, 1}}})), "takes no new work"));
}

TEST_F(apply_trials,
       an_allocation_is_remembered_for_accounting_until_it_ends_and_after) {
  auto& e = s.experiments.at(1);
  e.owner = "alice";
  e.config["labels"] = {"vision", 3, "big"};
  place(1, "1.1", {{"a1", {0, 1}}}, 300);
  const auto& r = s.allocation_history.at("1.1");
  EXPECT_EQ(r.trial_id, 1);
  EXPECT_EQ(r.experiment_id, 1);
  EXPECT_EQ(r.owner, "alice");
  EXPECT_EQ(r.workspace_name, "Uncategorized");
  EXPECT_EQ(r.pool, "default");
  EXPECT_EQ(r.labels, (std::vector<std::string>{"vision", "big"}));
  EXPECT_EQ(r.slots, 2);
  EXPECT_EQ(r.started_at_us, 300);
  EXPECT_EQ(r.ended_at_us, 0);
  exit(1, "1.1", "preempted");
  EXPECT_EQ(s.allocation_history.at("1.1").ended_at_us, 900);
  ok(trial_restarted{1, 910});
  place(1, "1.2", {{"a2", {0, 1}}}, 920);
  EXPECT_EQ(s.allocation_history.at("1.2").started_at_us, 920);
  exit(1, "1.2", "completed");
  ok(experiment_state_changed{1, "COMPLETED", "", 950});
  ok(experiment_deleted{1, "admin", 960});
  EXPECT_EQ(s.experiments.count(1), 0u);
  EXPECT_EQ(s.allocation_history.size(), 2u);
  EXPECT_EQ(s.allocation_history.at("1.2").experiment_id, 1);
}

TEST_F(apply_trials, a_trial_of_a_paused_experiment_is_not_placed) {
  ok(experiment_state_changed{1, "PAUSED", "", 0});
  EXPECT_TRUE(has(refused(placement(1, "1.1", {{"a1", {0, 1}}})), "PAUSED"));
  EXPECT_TRUE(pending_trials(s, "default").empty());
}

TEST_F(apply_trials, a_trial_runs_then_checkpoints_when_asked_to_stop) {
  place(1, "1.1", {{"a1", {0, 1}}});
  EXPECT_TRUE(has(refused(trial_running{1, "1.9", 0}), "not '1.9'"));
  ok(trial_running{1, "1.1", 400});
  EXPECT_EQ(t(1).status, trial_status::running);
  EXPECT_TRUE(has(refused(trial_running{1, "1.1", 0}), "not assigned"));
  ok(trial_preemption_requested{1, "1.1", "experiment paused", 500});
  EXPECT_EQ(t(1).status, trial_status::checkpointing);
  EXPECT_TRUE(has(refused(trial_preemption_requested{1, "1.1", "", 0}),
                  "already asked"));
  // A kill after the gentler request is recorded once.
  ok(trial_preemption_requested{1, "1.1", "killed", 550});
  EXPECT_EQ(t(1).allocation->preemption_reason, "killed");
  EXPECT_TRUE(has(refused(trial_preemption_requested{1, "1.1", "killed", 0}),
                  "already asked"));
  ok(trial_checkpointed{1, "ck-1", 100, {}, "1.1", 600});
  EXPECT_EQ(t(1).latest_checkpoint->uuid, "ck-1");
  exit(1, "1.1", "paused");
  EXPECT_EQ(t(1).status, trial_status::exited);
  EXPECT_EQ(t(1).restarts, 0);
  EXPECT_EQ(a("a1").idle_since_us, 900);
}

TEST_F(apply_trials, an_older_checkpoint_or_one_without_allocation_is_refused) {
  EXPECT_TRUE(has(refused(trial_checkpointed{1, "ck", 1, {}, "", 0}),
                  "holds no allocation"));
  place(1, "1.1", {{"a1", {0, 1}}});
  ok(trial_checkpointed{1, "ck-2", 200, {}, "", 600});
  EXPECT_TRUE(has(refused(trial_checkpointed{1, "ck-1", 100, {}, "1.1", 0}),
                  "older than the latest"));
}

TEST_F(apply_trials, metrics_keep_latest_and_best_validation) {
  place(1, "1.1", {{"a1", {0, 1}}});
  ok(trial_metrics_reported{1, "1.1", "training", 10, {{"loss", 3.0}}, 0});
  ok(trial_metrics_reported{1, "1.1", "validation", 10, {{"loss", 2.0}}, 0});
  ok(trial_metrics_reported{1, "1.1", "validation", 20, {{"loss", 2.5}}, 0});
  const auto& m = t(1).metrics;
  EXPECT_EQ(m.steps_completed, 20);
  EXPECT_EQ(m.training_reports, 1);
  EXPECT_EQ(m.validation_reports, 2);
  EXPECT_EQ(m.latest_validation["loss"], 2.5);
  EXPECT_EQ(m.best_validation, 2.0);
  EXPECT_EQ(m.best_validation_steps, 10);
  EXPECT_TRUE(has(refused(trial_metrics_reported{1, "1.1", "a.b", 1, {}, 0}),
                  "'kind'"));
}

TEST_F(apply_trials, a_completed_exit_ends_the_trial_and_frees_its_slots) {
  place(1, "1.1", {{"a1", {0, 1}}});
  exit(1, "1.1", "completed");
  EXPECT_EQ(t(1).status, trial_status::completed);
  EXPECT_EQ(free_slots(a("a1")), 2);
  EXPECT_TRUE(s.allocations.empty());
  EXPECT_TRUE(has(refused(trial_exited{1, "1.1", 0, "completed", 0}),
                  "holds no allocation"));
}

TEST_F(apply_trials, a_killed_exit_cancels_the_trial) {
  place(1, "1.1", {{"a1", {0, 1}}});
  exit(1, "1.1", "killed", 137);
  EXPECT_EQ(t(1).status, trial_status::canceled);
  EXPECT_EQ(t(1).last_exit_code, 137);
}

TEST_F(apply_trials, failures_count_restarts_until_max_restarts_is_exhausted) {
  // max_restarts is 1: two attempts in all.
  place(1, "1.1", {{"a1", {0, 1}}});
  exit(1, "1.1", "failed", 1);
  EXPECT_EQ(t(1).restarts, 1);
  ok(trial_restarted{1, 950});
  EXPECT_EQ(t(1).status, trial_status::pending);
  place(1, "1.2", {{"a2", {0, 1}}});
  exit(1, "1.2", "failed", 1);
  EXPECT_EQ(t(1).restarts, 2);
  EXPECT_TRUE(has(refused(trial_restarted{1, 0}), "exhausted its restarts"));
  ok(trial_errored{1, "trial exceeded max restarts", 999});
  EXPECT_EQ(t(1).status, trial_status::errored);
  EXPECT_EQ(t(1).end_reason, "trial exceeded max restarts");
}

TEST_F(apply_trials, transient_exits_never_count_against_max_restarts) {
  int run = 0;
  for (auto why : {"preempted", "paused", "agent_lost", "spot_reclaimed"}) {
    auto alloc = "1." + std::to_string(++run);
    place(1, alloc, {{"a1", {0, 1}}});
    exit(1, alloc, why);
    ok(trial_restarted{1, 950});
  }
  EXPECT_EQ(t(1).restarts, 0);
  EXPECT_EQ(t(1).runs, 4);
}

TEST_F(apply_trials, only_pending_or_exited_trials_can_be_closed) {
  place(1, "1.1", {{"a1", {0, 1}}});
  EXPECT_TRUE(has(refused(trial_canceled{1, "", 0}), "only pending or exited"));
  EXPECT_TRUE(has(refused(trial_errored{1, "", 0}), "only pending or exited"));
  EXPECT_TRUE(has(refused(trial_restarted{1, 0}), "not exited"));
  exit(1, "1.1", "preempted");
  ok(trial_canceled{1, "experiment canceled", 0});
  EXPECT_EQ(t(1).status, trial_status::canceled);
  EXPECT_TRUE(has(refused(trial_canceled{1, "", 0}), "canceled"));
  EXPECT_TRUE(has(refused(trial_canceled{5, "", 0}), "unknown trial 5"));
}

TEST_F(apply_trials, an_unknown_exit_reason_is_refused) {
  place(1, "1.1", {{"a1", {0, 1}}});
  EXPECT_TRUE(has(refused(trial_exited{1, "1.1", 0, "bored", 0}), "'reason'"));
}

} // namespace

} // namespace det::state::test
