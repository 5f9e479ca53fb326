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

TEST_F(apply_experiments, validations_and_trial_ends_queue_searcher_inputs) {
  experiment(1);
  agent("a1", 2);
  trial(1, 1);
  trial(2, 1);
  place(1, "1.1", {{"a1", {0}}});
  ok(trial_metrics_reported{1, "1.1", "training", 50, {{"loss", 0.9}}, 400});
  EXPECT_TRUE(s.experiments.at(1).searcher_inbox.empty());
  ok(trial_metrics_reported{1, "1.1", "validation", 100, {{"loss", 0.5}}, 410});
  ok(trial_canceled{2, "searcher closed", 420});
  const auto& e = s.experiments.at(1);
  ASSERT_EQ(e.searcher_inbox.size(), 2u);
  EXPECT_EQ(e.searcher_inputs_queued, 2);
  EXPECT_EQ(e.searcher_inbox[0].seq, 1);
  EXPECT_EQ(e.searcher_inbox[0].kind, "validation");
  EXPECT_EQ(e.searcher_inbox[0].request_id, "r1");
  EXPECT_EQ(e.searcher_inbox[0].steps, 100);
  EXPECT_EQ(e.searcher_inbox[0].metrics["loss"], 0.5);
  EXPECT_EQ(e.searcher_inbox[1].kind, "ended");
  EXPECT_EQ(e.searcher_inbox[1].trial_id, 2);
  EXPECT_EQ(e.searcher_inbox[1].trial_status, "canceled");
  // A completed allocation ends the trial: queued too.
  ok(trial_exited{1, "1.1", 0, "completed", 430});
  ASSERT_EQ(s.experiments.at(1).searcher_inbox.size(), 3u);
  EXPECT_EQ(s.experiments.at(1).searcher_inbox[2].trial_status, "completed");
}

TEST_F(apply_experiments, the_searcher_update_consumes_inputs_through_its_seq) {
  experiment(1);
  trial(1, 1);
  trial(2, 1);
  trial(3, 1);
  ok(trial_canceled{1, "x", 300});
  ok(trial_canceled{2, "x", 310});
  ok(trial_canceled{3, "x", 320});
  // Beyond what was queued: refused, nothing consumed.
  EXPECT_TRUE(has(refused(experiment_searcher_updated{1, {}, 0.5, 4}),
                  "only 3 were queued"));
  ok(experiment_searcher_updated{1, {{"k", 1}}, 0.5, 2});
  const auto& e = s.experiments.at(1);
  ASSERT_EQ(e.searcher_inbox.size(), 1u);
  EXPECT_EQ(e.searcher_inbox[0].seq, 3);
  // A repeated or older seq consumes nothing more.
  ok(experiment_searcher_updated{1, {{"k", 2}}, 0.5, 1});
  EXPECT_EQ(s.experiments.at(1).searcher_inbox.size(), 1u);
  // -1, as logs from before the inbox read: everything queued so far.
  ok(experiment_searcher_updated{1, {{"k", 3}}, 0.5, -1});
  EXPECT_TRUE(s.experiments.at(1).searcher_inbox.empty());
  EXPECT_EQ(s.experiments.at(1).searcher_inputs_queued, 3);
}

TEST_F(apply_experiments,
       an_ended_experiment_drops_its_inbox_and_queues_nothing) {
  experiment(1);
  trial(1, 1);
  ok(trial_canceled{1, "x", 300});
  EXPECT_EQ(s.experiments.at(1).searcher_inbox.size(), 1u);
  change(1, "CANCELED");
  EXPECT_TRUE(s.experiments.at(1).searcher_inbox.empty());
}

TEST_F(apply_experiments, the_inbox_survives_a_snapshot) {
  experiment(1);
  trial(1, 1);
  ok(trial_canceled{1, "x", 300});
  auto back = from_snapshot(to_snapshot(s));
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_TRUE(*back == s);
  ASSERT_EQ(back->experiments.at(1).searcher_inbox.size(), 1u);
  // A snapshot of a master that fed its searchers inline has no inbox.
  auto j = to_snapshot(s);
  for (auto& e : j["experiments"]) {
    e.erase("searcher_inbox");
    e.erase("searcher_inputs_queued");
  }
  auto old = from_snapshot(j);
  ASSERT_TRUE(old) << render(old.error());
  EXPECT_TRUE(old->experiments.at(1).searcher_inbox.empty());
}

TEST_F(apply_experiments,
       a_continued_experiment_is_active_again_with_its_trials_pending) {
  experiment(1);
  trial(1, 1);
  trial(2, 1);
  ok(trial_canceled{1, "x", 300});
  ok(trial_canceled{2, "y", 300});
  experiment_continued ev;
  ev.experiment_id = 1;
  ev.config = {{"searcher", {{"name", "grid"}}}, {"max_restarts", 7}};
  ev.trial_ids = {2};
  ev.searcher_state = {{"shut_down", false}};
  ev.progress = 0.5;
  ev.at_us = 400;
  // Only an ended experiment is continued.
  EXPECT_TRUE(has(refused(ev), "only an ended experiment is continued"));
  change(1, "CANCELED");
  ev.trial_ids = {3};
  EXPECT_TRUE(has(refused(ev), "trial 3 is not a trial of experiment 1"));
  ev.trial_ids = {2, 2};
  EXPECT_TRUE(has(refused(ev), "named twice"));
  ev.trial_ids = {2};
  ok(ev);
  const auto& e = s.experiments.at(1);
  EXPECT_EQ(e.status, experiment_status::active);
  EXPECT_EQ(e.state_changed_at_us, 400);
  EXPECT_EQ(e.config, ev.config);
  EXPECT_EQ(e.max_restarts, 7);
  EXPECT_EQ(e.searcher_state, ev.searcher_state);
  EXPECT_EQ(e.progress, 0.5);
  EXPECT_EQ(s.trials.at(1).status, trial_status::canceled);
  EXPECT_EQ(s.trials.at(2).status, trial_status::pending);
  EXPECT_EQ(s.trials.at(2).ended_at_us, 0);
  EXPECT_TRUE(s.trials.at(2).end_reason.empty());
  // A new task of the trial begins; the old one ended when it was canceled.
  EXPECT_EQ(s.trials.at(2).continued_at_us, std::vector<int64_t>{400});
  EXPECT_EQ(s.trials.at(2).ended_before_continue_us, std::vector<int64_t>{300});
  EXPECT_EQ(
      trial_task_ids(s.trials.at(2)),
      (std::vector<std::string>{task_id_of(1, 2), task_id_of(1, 2) + "-1"}));
  EXPECT_TRUE(s.trials.at(1).continued_at_us.empty());
  EXPECT_TRUE(check_invariants(s).empty());
  // Running again: not continued twice.
  EXPECT_TRUE(has(refused(ev), "only an ended experiment is continued"));
}

} // namespace

} // namespace det::state::test

namespace det::state::test {
namespace {

class apply_runs : public state_fixture {};

TEST_F(apply_runs, runs_are_archived_and_deleted_only_once_ended) {
  pool();
  experiment(1);
  trial(1, 1);
  trial(2, 1);
  // Live runs: neither archived nor deleted.
  EXPECT_NE(refused(runs_archived{1, {1}, true, "a", 10}).find("not ended"),
            std::string::npos);
  ok(trial_canceled{1, "searcher", 20});
  ok(runs_archived{1, {1}, true, "a", 30});
  EXPECT_TRUE(s.trials.at(1).archived);
  // Not of that experiment, named twice, or the experiment still live.
  EXPECT_NE(refused(runs_archived{2, {1}, true, "a", 40}).find("unknown"),
            std::string::npos);
  EXPECT_NE(refused(runs_archived{1, {1, 1}, false, "a", 40}).find("twice"),
            std::string::npos);
  EXPECT_NE(refused(runs_deleted{1, {1}, "a", 40}).find("has not ended"),
            std::string::npos);
  ok(trial_canceled{2, "searcher", 50});
  ok(experiment_state_changed{1, "CANCELED", "", 60});
  ok(runs_deleted{1, {1}, "a", 70});
  EXPECT_TRUE(s.trials.at(1).deleted);
  EXPECT_EQ(find_listed_trial(s, 1), nullptr);
  EXPECT_NE(refused(runs_deleted{1, {1}, "a", 80}).find("was deleted"),
            std::string::npos);
}

TEST_F(apply_runs, a_log_policy_matches_once_per_trial_and_policy) {
  pool();
  experiment(1);
  trial(1, 1);
  ok(trial_log_policy_matched{1, 1, "OOM", ".*oom.*", "cancel_retries", "a1",
                              "oom!", 10});
  ok(trial_log_policy_matched{1, 1, "", "ecc", "exclude_node", "a2", "ecc",
                              20});
  EXPECT_EQ(s.trials.at(1).log_policy_matched, "OOM");
  EXPECT_EQ(s.trials.at(1).retries_canceled_by, "OOM");
  EXPECT_EQ(s.trials.at(1).excluded_agents, std::vector<std::string>{"a2"});
  EXPECT_NE(
      refused(trial_log_policy_matched{1, 1, "OOM", ".*oom.*", "", "", "", 30})
          .find("already matched"),
      std::string::npos);
  EXPECT_NE(refused(trial_log_policy_matched{1, 2, "X", "x", "", "", "", 30})
                .find("not one of experiment 2"),
            std::string::npos);
}

} // namespace
} // namespace det::state::test
