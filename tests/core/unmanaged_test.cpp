// Unmanaged experiments as master_core decides them
// (core/master_core_unmanaged.cpp): created and put by external id, trials
// created, put, started and set by their clients, the experiment's state
// following its trials', metrics and checkpoints without an allocation,
// the lost-trial sweep on the injected clock, and replay to the same state.

#include "tests/core/core_cluster.hpp"

#include "core/trials_parse.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;
using json = nlohmann::json;
using es = state::experiment_status;
using ts = state::trial_status;

json unmanaged_config() {
  return {{"name", "offsite"},
          {"searcher", {{"name", "single"}, {"metric", "loss"}}},
          {"checkpoint_storage",
           {{"type", "shared_fs"}, {"host_path", "/tmp/ckpt"}}}};
}

struct unmanaged : ::testing::Test {
  cluster c;

  /// The request's arguments through `parse`, sent as alice.
  template <class C>
  decision rec(caf::expected<C> (*parse)(const json&), const json& args) {
    return c.parsed_run(parse(args), "alice");
  }

  int64_t new_experiment(const std::string& ext = "") {
    json args{{"config", unmanaged_config()}};
    if (!ext.empty())
      args["externalExperimentId"] = ext;
    auto d = rec(parse_unmanaged_experiment_open, args);
    EXPECT_FALSE(d.refusal) << render(d.refusal);
    return d.reply.value("experiment_id", int64_t{0});
  }

  int64_t new_trial(int64_t exp, const std::string& ext = "",
                    json hp = {{"lr", 0.1}}) {
    json args{{"experimentId", exp}, {"hparams", hp}};
    if (!ext.empty())
      args["externalTrialId"] = ext;
    auto d = rec(parse_unmanaged_trial_open, args);
    EXPECT_FALSE(d.refusal) << render(d.refusal);
    return d.reply.value("trial_id", int64_t{0});
  }

  void expect_sound() {
    EXPECT_EQ(state::check_invariants(c.core->state()),
              std::vector<std::string>{});
    EXPECT_EQ(c.replayed(), c.core->state());
  }
};

TEST_F(unmanaged, a_trial_runs_reports_and_completes_its_experiment) {
  // A pool with an idle agent: nothing of the unmanaged experiment is ever
  // placed on it.
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  auto exp = new_experiment();
  ASSERT_EQ(exp, 1);
  EXPECT_TRUE(c.experiment(exp).unmanaged);
  EXPECT_EQ(c.experiment(exp).status, es::paused);
  auto tid = new_trial(exp);
  EXPECT_EQ(c.trial(tid).status, ts::pending);
  EXPECT_EQ(c.experiment(exp).status, es::paused);

  auto d =
      rec(parse_unmanaged_trial_start, {{"trialId", tid}, {"resume", true}});
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply["trialRunId"], 1);
  EXPECT_TRUE(d.reply["latestCheckpoint"].is_null());
  EXPECT_EQ(c.trial(tid).status, ts::running);
  EXPECT_FALSE(c.trial(tid).allocation);
  EXPECT_EQ(c.experiment(exp).status, es::active);
  // The scheduler's tick places nothing and the agent stays idle.
  d = c.run(c.core->tick(c.now));
  EXPECT_EQ(starts_in<start_order>(d), 0u);
  EXPECT_TRUE(state::find_agent(c.core->state(), "a1")->idle_since_us);

  ASSERT_FALSE(rec(parse_user_metrics_report, {{"trialId", tid},
                                               {"group", "validation"},
                                               {"steps", 5},
                                               {"metrics", {{"loss", 0.25}}}})
                   .refusal);
  ASSERT_FALSE(rec(parse_unmanaged_checkpoint, {{"trialId", tid},
                                                {"uuid", "ck-1"},
                                                {"steps", 5},
                                                {"metadata", json::object()}})
                   .refusal);
  EXPECT_EQ(c.trial(tid).metrics.best_validation, 0.25);
  EXPECT_EQ(c.trial(tid).latest_checkpoint->uuid, "ck-1");
  // No searcher: nothing is queued for one.
  EXPECT_TRUE(c.experiment(exp).searcher_inbox.empty());
  expect_refused(rec(parse_unmanaged_checkpoint,
                     {{"trialId", tid}, {"uuid", "ck-0"}, {"steps", 4}}),
                 errc::invalid_argument, "older than trial");
  // Any group upstream keeps; none it refuses, nor a missing one.
  ASSERT_FALSE(rec(parse_user_metrics_report, {{"trialId", tid},
                                               {"group", "group_b"},
                                               {"steps", 5},
                                               {"metrics", {{"x", 2}}}})
                   .refusal);
  EXPECT_EQ(c.trial(tid).metrics.summaries.at("group_b").at("x").at("count"),
            1);
  EXPECT_EQ(c.trial(tid).metrics.best_validation, 0.25);
  for (const char* bad : {"", "a.b", "bell\a"})
    expect_refused(
        rec(parse_user_metrics_report, {{"trialId", tid}, {"group", bad}}),
        errc::invalid_argument, "group ");
  expect_refused(rec(parse_user_metrics_report, {{"trialId", tid}}),
                 errc::invalid_argument, "group must not be empty");

  c.now += 10 * sec;
  ASSERT_FALSE(rec(parse_unmanaged_trial_patch,
                   {{"trialId", tid}, {"state", "STATE_COMPLETED"}})
                   .refusal);
  EXPECT_EQ(c.trial(tid).status, ts::completed);
  EXPECT_EQ(c.trial(tid).ended_at_us, c.now);
  EXPECT_EQ(c.experiment(exp).status, es::completed);
  EXPECT_EQ(c.experiment(exp).progress, 1.0);
  EXPECT_EQ(c.experiment(exp).state_changed_at_us, c.now);
  // The same state again writes nothing.
  EXPECT_TRUE(rec(parse_unmanaged_trial_patch,
                  {{"trialId", tid}, {"state", "COMPLETED"}})
                  .events.empty());
  expect_sound();
}

TEST_F(unmanaged, external_ids_put_the_same_experiment_and_trial_again) {
  auto exp = new_experiment("sweep-7");
  EXPECT_EQ(new_experiment("sweep-7"), exp);
  EXPECT_EQ(c.experiment(exp).external_id, "sweep-7");
  auto other = new_experiment("sweep-8");
  EXPECT_NE(other, exp);
  auto tid = new_trial(exp, "run-a", {{"lr", 0.1}});
  // Put again with new hyperparameters: the same trial takes them.
  EXPECT_EQ(new_trial(exp, "run-a", {{"lr", 0.2}}), tid);
  EXPECT_EQ(c.trial(tid).hparams, (json{{"lr", 0.2}}));
  // The same name in another experiment is another trial.
  EXPECT_NE(new_trial(other, "run-a"), tid);
  EXPECT_EQ(c.experiment(exp).trial_ids, std::vector<int64_t>{tid});
  expect_sound();
}

TEST_F(unmanaged, a_later_run_resumes_from_the_latest_checkpoint) {
  auto exp = new_experiment();
  auto tid = new_trial(exp);
  rec(parse_unmanaged_trial_start, {{"trialId", tid}, {"resume", true}});
  rec(parse_unmanaged_checkpoint,
      {{"trialId", tid}, {"uuid", "ck-9"}, {"steps", 90}});
  rec(parse_unmanaged_trial_patch, {{"trialId", tid}, {"state", "ERROR"}});
  EXPECT_EQ(c.experiment(exp).status, es::error);
  expect_refused(
      rec(parse_unmanaged_trial_start, {{"trialId", tid}, {"resume", false}}),
      errc::failed_precondition, "trial has already been started");
  auto d =
      rec(parse_unmanaged_trial_start, {{"trialId", tid}, {"resume", true}});
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply["trialRunId"], 2);
  EXPECT_EQ(d.reply["latestCheckpoint"], "ck-9");
  EXPECT_EQ(d.reply["stepsCompleted"], 90);
  // An ERROR experiment runs again while a trial runs.
  EXPECT_EQ(c.experiment(exp).status, es::active);
  EXPECT_EQ(c.trial(tid).ended_at_us, 0);
  expect_sound();
}

TEST_F(unmanaged, the_experiment_takes_its_most_advanced_trials_state) {
  auto exp = new_experiment();
  auto t1 = new_trial(exp);
  auto t2 = new_trial(exp);
  rec(parse_unmanaged_trial_start, {{"trialId", t1}, {"resume", true}});
  rec(parse_unmanaged_trial_start, {{"trialId", t2}, {"resume", true}});
  rec(parse_unmanaged_trial_patch, {{"trialId", t1}, {"state", "ERROR"}});
  EXPECT_EQ(c.experiment(exp).status, es::active); // t2 still runs
  rec(parse_unmanaged_trial_patch, {{"trialId", t2}, {"state", "COMPLETED"}});
  EXPECT_EQ(c.experiment(exp).status, es::completed);
  // A new trial, not started, leaves it COMPLETED; started, it runs again.
  auto t3 = new_trial(exp);
  EXPECT_EQ(c.experiment(exp).status, es::completed);
  rec(parse_unmanaged_trial_patch, {{"trialId", t3}, {"state", "RUNNING"}});
  EXPECT_EQ(c.experiment(exp).status, es::active);
  rec(parse_unmanaged_trial_patch, {{"trialId", t3}, {"state", "PAUSED"}});
  EXPECT_EQ(c.experiment(exp).status, es::completed);
  expect_sound();
}

TEST_F(unmanaged, a_silent_running_trial_is_given_up_after_five_minutes) {
  auto exp = new_experiment();
  auto quiet = new_trial(exp);
  auto chatty = new_trial(exp);
  rec(parse_unmanaged_trial_start, {{"trialId", quiet}, {"resume", true}});
  rec(parse_unmanaged_trial_start, {{"trialId", chatty}, {"resume", true}});
  for (int minute = 1; minute <= 4; ++minute) {
    c.now += 60 * sec;
    // A heartbeat is remembered, not written.
    EXPECT_TRUE(
        rec(parse_unmanaged_trial_patch, {{"trialId", chatty}}).events.empty());
    EXPECT_TRUE(c.run(c.core->tick(c.now)).events.empty());
  }
  c.now += 60 * sec;
  c.run(c.core->tick(c.now));
  EXPECT_EQ(c.trial(quiet).status, ts::errored);
  EXPECT_NE(c.trial(quiet).end_reason.find("no heartbeat"), std::string::npos)
      << c.trial(quiet).end_reason;
  EXPECT_EQ(c.trial(chatty).status, ts::running);
  EXPECT_EQ(c.experiment(exp).status, es::active);
  // After a restart the five minutes count from the restart.
  c.restart({});
  c.now += 4 * 60 * sec;
  c.run(c.core->tick(c.now));
  EXPECT_EQ(c.trial(chatty).status, ts::running);
  c.now += 60 * sec;
  c.run(c.core->tick(c.now));
  EXPECT_EQ(c.trial(chatty).status, ts::errored);
  EXPECT_EQ(c.experiment(exp).status, es::error);
  expect_sound();
}

TEST_F(unmanaged, users_cannot_drive_it_and_managed_trials_are_refused) {
  c.run(c.core->submit_experiment(experiment(), "alice", c.now));
  auto exp = new_experiment();
  auto tid = new_trial(exp);
  expect_refused(c.core->pause_experiment(exp, c.now),
                 errc::failed_precondition, "is unmanaged");
  expect_refused(c.core->kill_experiment(exp, c.now), errc::failed_precondition,
                 "is unmanaged");
  expect_refused(c.core->kill_trial(tid, c.now), errc::failed_precondition,
                 "is unmanaged");
  // Experiment 1 is managed: its trials are the master's.
  expect_refused(rec(parse_unmanaged_trial_open, {{"experimentId", 1}}),
                 errc::failed_precondition,
                 "trials can only be created on unmanaged experiments");
  expect_refused(
      rec(parse_unmanaged_trial_patch, {{"trialId", 1}, {"state", "ERROR"}}),
      errc::failed_precondition, "only unmanaged trials");
  expect_refused(
      rec(parse_unmanaged_trial_patch, {{"trialId", tid}, {"state", "LOST"}}),
      errc::invalid_argument, "state: 'LOST'");
  expect_refused(rec(parse_unmanaged_trial_start, {{"trialId", 99}}),
                 errc::not_found, "trial 99 not found");
  expect_refused(rec(parse_unmanaged_trial_open,
                     {{"experimentId", exp}, {"externalTrialId", "a\nb"}}),
                 errc::invalid_argument, "externalTrialId");
  expect_sound();
}

} // namespace
} // namespace det
