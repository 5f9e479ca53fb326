// Runs as master_core decides them (core/runs.hpp): archive, unarchive and
// delete of ended runs, and the log policies' matches: the label, a
// cancel_retries failure that is final, an exclude_node agent the retry
// keeps off. Every decision is replayed to the same state.

#include "tests/core/core_cluster.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;
using json = nlohmann::json;

struct runs : ::testing::Test {
  cluster c;

  decision rec(const std::string& op, json args) {
    return c.run(c.core->records({op, std::move(args), "alice"}, c.now));
  }

  decision match(log_policy_match m) { return c.run(c.core->decide(m, c.now)); }

  /// A grid of two one-slot trials on two agents, both completed.
  void two_completed_runs() {
    auto cfg = experiment(10, 2, 1, "grid");
    cfg["hyperparameters"] = {
        {"lr", {{"type", "categorical"}, {"vals", {0.1, 0.2}}}}};
    c.run(c.core->submit_experiment(cfg, "alice", c.now));
    c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
    c.run(c.core->agent_connected("a2", "default", 1, "cpu", "", {}, c.now));
    for (const char* alloc : {"1.1", "2.1"}) {
      c.run(c.core->allocation_running(alloc, c.now));
      c.run(c.core->metrics_reported(alloc, "validation", 10, {{"loss", 0.5}},
                                     c.now));
      c.run(c.core->allocation_exited(alloc, 0, c.now));
    }
    ASSERT_EQ(c.experiment(1).status, state::experiment_status::completed);
  }

  json policies(const std::string& action) {
    auto cfg = experiment(100, 3);
    cfg["log_policies"] = {{{"name", "OOM"},
                            {"pattern", ".*out of memory.*"},
                            {"action", action}}};
    return cfg;
  }
};

TEST_F(runs, ended_runs_are_archived_and_deleted_and_replay_the_same) {
  two_completed_runs();
  auto d = rec("runs.archive",
               {{"experimentId", 1}, {"runIds", {1}}, {"archived", true}});
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_TRUE(c.trial(1).archived);
  EXPECT_FALSE(c.trial(2).archived);
  // Archived twice: nothing more is written.
  EXPECT_TRUE(rec("runs.archive",
                  {{"experimentId", 1}, {"runIds", {1}}, {"archived", true}})
                  .events.empty());
  d = rec("runs.delete", {{"experimentId", 1}, {"runIds", {2}}});
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_TRUE(c.trial(2).deleted);
  EXPECT_EQ(state::find_listed_trial(c.core->state(), 2), nullptr);
  EXPECT_NE(state::find_trial(c.core->state(), 2), nullptr);
  EXPECT_EQ(state::listed_trial_ids(c.core->state(), c.experiment(1)),
            std::vector<int64_t>{1});
  // A deleted run is gone for every later command.
  expect_refused(rec("runs.delete", {{"experimentId", 1}, {"runIds", {2}}}),
                 errc::not_found, "Run with id '2' not found");
  expect_refused(c.core->continue_experiment(1, json::object(), "alice", c.now),
                 errc::failed_precondition, "its run 2 was deleted");
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST_F(runs, live_runs_and_bad_arguments_are_refused_naming_why) {
  c.run(c.core->submit_experiment(experiment(), "alice", c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  expect_refused(
      rec("runs.archive",
          {{"experimentId", 1}, {"runIds", {1}}, {"archived", true}}),
      errc::failed_precondition, "Run 1 is not in a terminal state.");
  expect_refused(rec("runs.delete", {{"experimentId", 1}, {"runIds", {1}}}),
                 errc::failed_precondition, "Run is part of an active search");
  expect_refused(rec("runs.delete", {{"experimentId", 9}, {"runIds", {1}}}),
                 errc::not_found, "experiment 9 not found");
  expect_refused(rec("runs.archive", {{"experimentId", 1}, {"runIds", {1}}}),
                 errc::invalid_argument, "archived: expected a boolean");
  expect_refused(rec("runs.delete", {{"experimentId", 1}, {"runIds", "1"}}),
                 errc::invalid_argument, "runIds: expected a non-empty list");
  expect_refused(rec("runs.delete", {{"experimentId", 1}, {"runIds", {0}}}),
                 errc::invalid_argument, "runIds: expected positive ids");
  c.run(c.core->kill_experiment(1, c.now));
  c.run(c.core->allocation_exited("1.1", 137, c.now));
  ASSERT_TRUE(state::is_terminal(c.experiment(1).status));
  c.run(c.core->archive_experiment(1, true, "alice", c.now));
  expect_refused(
      rec("runs.archive",
          {{"experimentId", 1}, {"runIds", {1}}, {"archived", true}}),
      errc::failed_precondition, "Run is part of archived Search (id: '1').");
}

TEST_F(runs, a_cancel_retries_match_makes_the_next_failure_final) {
  c.run(c.core->submit_experiment(policies("cancel_retries"), "alice", c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  c.run(c.core->allocation_running("1.1", c.now));
  auto d = match({1, "OOM", "CUDA out of memory", "a1"});
  ASSERT_EQ(d.events.size(), 1u) << render(d.refusal);
  EXPECT_EQ(c.trial(1).log_policy_matched, "OOM");
  EXPECT_EQ(c.trial(1).retries_canceled_by, "OOM");
  // Once per trial and policy; a policy the config lacks writes nothing.
  EXPECT_TRUE(match({1, "OOM", "again", ""}).events.empty());
  EXPECT_TRUE(match({1, "invented", "x", ""}).events.empty());
  c.run(c.core->allocation_exited("1.1", 1, c.now));
  EXPECT_EQ(c.trial(1).status, state::trial_status::errored);
  EXPECT_EQ(c.trial(1).restarts, 1);
  EXPECT_NE(c.trial(1).end_reason.find("don't retry policy 'OOM'"),
            std::string::npos)
      << c.trial(1).end_reason;
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST_F(runs, a_preempted_trial_with_a_cancel_retries_match_still_resumes) {
  c.run(c.core->submit_experiment(policies("cancel_retries"), "alice", c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  c.run(c.core->allocation_running("1.1", c.now));
  match({1, "OOM", "", ""});
  c.run(c.core->pause_experiment(1, c.now));
  c.run(c.core->allocation_exited("1.1", 0, c.now));
  EXPECT_EQ(c.trial(1).status, state::trial_status::pending);
}

TEST_F(runs, an_exclude_node_match_keeps_the_retry_off_that_agent) {
  c.run(c.core->submit_experiment(policies("exclude_node"), "alice", c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  c.run(c.core->agent_connected("a2", "default", 1, "cpu", "", {}, c.now));
  auto placed_on = c.trial(1).allocation->assignments.at(0).agent_id;
  c.run(c.core->allocation_running("1.1", c.now));
  match({1, "OOM", "", placed_on});
  EXPECT_EQ(c.trial(1).excluded_agents, std::vector<std::string>{placed_on});
  c.run(c.core->allocation_exited("1.1", 1, c.now));
  ASSERT_TRUE(c.trial(1).allocation);
  EXPECT_NE(c.trial(1).allocation->assignments.at(0).agent_id, placed_on);
  EXPECT_EQ(c.replayed(), c.core->state());
}

} // namespace
} // namespace det
