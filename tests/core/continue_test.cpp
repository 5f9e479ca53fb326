// master_core::continue_experiment: an ended experiment runs again, its
// trials resuming from their checkpoints; every refusal names the state or
// the field.

#include "tests/core/core_cluster.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;
using json = nlohmann::json;

json longer(int64_t batches) {
  return {{"searcher", {{"max_length", {{"batches", batches}}}}}};
}

/// Runs allocation `alloc` to `length`: checkpoint, validation, clean exit.
void train_to(cluster& c, const std::string& alloc, int64_t length) {
  c.run(c.core->allocation_running(alloc, c.now));
  c.run(c.core->checkpoint_reported(alloc, "ck-" + alloc, length, {}, c.now));
  c.run(c.core->metrics_reported(alloc, "validation", length, {{"loss", 0.5}},
                                 c.now));
  c.run(c.core->allocation_exited(alloc, 0, c.now));
}

TEST(continue_experiment,
     a_completed_single_trains_on_from_its_checkpoint_to_the_longer_length) {
  cluster c;
  c.run(c.core->submit_experiment(experiment(10), "ann", c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  train_to(c, "1.1", 10);
  ASSERT_EQ(c.experiment(1).status, state::experiment_status::completed);
  ASSERT_EQ(c.trial(1).status, state::trial_status::completed);

  c.now += sec;
  auto d = c.run(c.core->continue_experiment(1, longer(20), "ann", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  ASSERT_EQ(d.events.size() >= 1, true);
  ASSERT_NE(std::get_if<experiment_continued>(&d.events.front()), nullptr);
  EXPECT_EQ(d.reply["trial_ids"], json::array({1}));
  const auto& e = c.experiment(1);
  EXPECT_EQ(e.status, state::experiment_status::active);
  EXPECT_EQ(e.config["searcher"]["max_length"]["batches"], 20);
  EXPECT_EQ(e.config["searcher"]["metric"], "loss"); // merged, not replaced
  EXPECT_EQ(e.progress, 0.0);
  EXPECT_EQ(c.trial(1).restarts, 0);
  EXPECT_EQ(c.trial(1).ended_at_us, 0);
  EXPECT_EQ(c.core->state().trials.size(), 1u); // no new trial
  // Placed again at once: the same trial, resuming from its checkpoint.
  auto starts = effects_of<start_order>(d);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].trial_id, 1);
  EXPECT_EQ(starts[0].allocation_id, "1.2");
  EXPECT_EQ(starts[0].target_length, 20);
  ASSERT_TRUE(starts[0].resume_from);
  EXPECT_EQ(starts[0].resume_from->uuid, "ck-1.1");
  EXPECT_EQ(starts[0].resume_from->steps_completed, 10);

  // A master restarted after the append replays to the same state and
  // finishes the continued trial.
  auto before = c.core->state();
  c.restart({});
  EXPECT_EQ(c.core->state().experiments, before.experiments);
  EXPECT_EQ(c.core->state().trials, before.trials);
  train_to(c, "1.2", 20);
  EXPECT_EQ(c.trial(1).status, state::trial_status::completed);
  EXPECT_EQ(c.trial(1).latest_checkpoint->steps_completed, 20);
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::completed);
  EXPECT_EQ(c.experiment(1).progress, 1.0);
  EXPECT_EQ(c.replayed(), c.core->state());
  EXPECT_TRUE(state::check_invariants(c.core->state()).empty());
}

TEST(continue_experiment, a_single_trial_runs_the_overrides_hyperparameters) {
  cluster c;
  auto cfg = experiment(10, 0); // no restarts
  cfg["hyperparameters"] = {{"lr", 0.1}, {"actions", {{"0", {{"x", 1}}}}}};
  c.run(c.core->create_experiment(cfg, "ann", true, false, c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  c.run(c.core->allocation_running("1.1", c.now));
  c.run(c.core->allocation_exited("1.1", 1, c.now));
  ASSERT_TRUE(state::is_terminal(c.experiment(1).status));
  ASSERT_EQ(c.trial(1).hparams["actions"]["0"]["x"], 1);

  // As `det e continue --config hyperparameters.actions...` sends it.
  json changed{{"hyperparameters", {{"actions", {{"0", {{"x", 2}}}}}}}};
  auto d = c.run(c.core->continue_experiment(1, changed, "ann", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(c.trial(1).hparams,
            (json{{"lr", 0.1}, {"actions", {{"0", {{"x", 2}}}}}}));
  auto starts = effects_of<start_order>(d);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].hparams["actions"]["0"]["x"], 2);
  EXPECT_EQ(c.replayed(), c.core->state());

  // Without a change of hyperparameters the event carries none.
  c.run(c.core->allocation_running("1.2", c.now));
  c.run(c.core->allocation_exited("1.2", 1, c.now));
  ASSERT_TRUE(state::is_terminal(c.experiment(1).status));
  d = c.run(c.core->continue_experiment(1, longer(20), "ann", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  auto ev = std::get_if<experiment_continued>(&d.events.front());
  ASSERT_NE(ev, nullptr);
  EXPECT_TRUE(ev->trial_hparams.is_null());
  EXPECT_EQ(c.trial(1).hparams["actions"]["0"]["x"], 2);
}

TEST(continue_experiment, grid_continues_only_the_trial_that_did_not_complete) {
  cluster c;
  auto cfg = experiment(100, 0, 1, "grid");
  cfg["hyperparameters"] = {
      {"lr", {{"type", "categorical"}, {"vals", {0.1, 0.2}}}}};
  c.run(c.core->create_experiment(cfg, "ann", true, false, c.now));
  c.run(c.core->agent_connected("a1", "default", 2, "cpu", "", {}, c.now));
  train_to(c, "1.1", 100);
  c.run(c.core->allocation_running("2.1", c.now));
  c.run(c.core->allocation_exited("2.1", 1, c.now)); // no restarts left
  ASSERT_EQ(c.trial(2).status, state::trial_status::errored);
  ASSERT_EQ(c.experiment(1).status, state::experiment_status::completed);

  expect_refused(
      c.run(c.core->continue_experiment(1, longer(200), "ann", c.now)),
      errc::invalid_argument,
      "override config is provided and experiment is not single "
      "searcher, got 'grid' instead");
  auto d = c.run(c.core->continue_experiment(1, json::object(), "ann", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply["trial_ids"], json::array({2}));
  EXPECT_EQ(c.trial(1).status, state::trial_status::completed);
  EXPECT_FALSE(state::is_terminal(c.trial(2).status)); // placed at once
  EXPECT_EQ(c.trial(2).restarts, 0);
  EXPECT_EQ(c.experiment(1).progress, 0.5);
  auto starts = effects_of<start_order>(d);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].allocation_id, "2.2");
  EXPECT_EQ(starts[0].target_length, 100);
  train_to(c, "2.2", 100);
  EXPECT_EQ(c.trial(2).status, state::trial_status::completed);
  EXPECT_EQ(c.core->state().trials.size(), 2u);
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::completed);
  EXPECT_EQ(c.replayed(), c.core->state());

  // Every trial completed: nothing is left to continue.
  expect_refused(
      c.run(c.core->continue_experiment(1, json::object(), "ann", c.now)),
      errc::failed_precondition,
      "experiment has been completed, cannot continue this experiment");
}

TEST(continue_experiment, refusals_name_the_state_or_the_field) {
  cluster c;
  c.run(c.core->submit_experiment(experiment(10), "ann", c.now));
  expect_refused(
      c.run(c.core->continue_experiment(1, longer(20), "ann", c.now)),
      errc::failed_precondition,
      "experiment in non terminal state 'ACTIVE', try again later");
  expect_refused(
      c.run(c.core->continue_experiment(9, json::object(), "ann", c.now)),
      errc::not_found, "experiment 9 not found");
  c.run(c.core->kill_experiment(1, c.now));
  ASSERT_TRUE(state::is_terminal(c.experiment(1).status));
  expect_refused(
      c.run(c.core->continue_experiment(1, {{"project", "p"}}, "ann", c.now)),
      errc::invalid_argument, "overrideConfig.project");
  expect_refused(
      c.run(c.core->continue_experiment(1, {{"workspace", "w"}}, "ann", c.now)),
      errc::invalid_argument, "overrideConfig.workspace");
  expect_refused(c.run(c.core->continue_experiment(
                     1, {{"searcher", {{"name", "random"}}}}, "ann", c.now)),
                 errc::invalid_argument, "searcher.name");
  expect_refused(
      c.run(c.core->continue_experiment(1, json::array(), "ann", c.now)),
      errc::invalid_argument, "overrideConfig");

  c.run(c.core->submit_experiment(experiment(10, 2, 1, "adaptive_asha", 2),
                                  "ann", c.now));
  c.run(c.core->kill_experiment(2, c.now));
  ASSERT_TRUE(state::is_terminal(c.experiment(2).status));
  expect_refused(
      c.run(c.core->continue_experiment(2, json::object(), "ann", c.now)),
      errc::invalid_argument,
      "Unsupported searcher type provided: 'adaptive_asha'");

  // A canceled single (its trial never ran) continues.
  auto d = c.run(c.core->continue_experiment(1, json::object(), "ann", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::active);
  EXPECT_EQ(c.trial(1).status, state::trial_status::pending);
  EXPECT_EQ(c.replayed(), c.core->state());
}

} // namespace
} // namespace det
