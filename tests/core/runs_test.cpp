// Runs as master_core decides them (core/runs.hpp): the Runs API's actions
// (runs_act), each run qualified on the master's state and answered, and
// the log policies' matches: the label, a
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

  /// runs_act `a` as alice: the command is never refused as a whole.
  json act(runs_act a) {
    a.username = "alice";
    auto d = c.run(c.core->decide(a, c.now));
    EXPECT_FALSE(d.refusal) << render(d.refusal);
    return d.reply;
  }

  /// The result `reply` gives run `id` (one per run).
  static std::string result(const json& reply, int64_t id) {
    std::string out = "(no result)";
    int n = 0;
    for (const auto& r : reply.at("results"))
      if (r.at("id") == id) {
        out = r.at("error").get<std::string>();
        ++n;
      }
    return n == 1 ? out : "(" + std::to_string(n) + " results)";
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
  auto reply = act({run_action::archive, {1}, 1});
  EXPECT_EQ(result(reply, 1), "") << reply;
  EXPECT_TRUE(c.trial(1).archived);
  EXPECT_FALSE(c.trial(2).archived);
  // Archived twice: done, and nothing more is written.
  auto before = c.core->state().position;
  EXPECT_EQ(result(act({run_action::archive, {1}, 1}), 1), "");
  EXPECT_EQ(c.core->state().position, before);
  reply = act({run_action::remove, {2}});
  EXPECT_EQ(result(reply, 2), "") << reply;
  EXPECT_EQ(reply.at("deleted"), json::array({2})) << reply;
  EXPECT_TRUE(c.trial(2).deleted);
  EXPECT_EQ(state::find_listed_trial(c.core->state(), 2), nullptr);
  EXPECT_NE(state::find_trial(c.core->state(), 2), nullptr);
  EXPECT_EQ(state::listed_trial_ids(c.core->state(), c.experiment(1)),
            std::vector<int64_t>{1});
  // A deleted run is gone for every later command.
  reply = act({run_action::remove, {2}, 1});
  EXPECT_EQ(result(reply, 2),
            "Run with id '2' not found in project with id '1'");
  EXPECT_EQ(reply.at("deleted"), json::array());
  expect_refused(c.core->continue_experiment(1, json::object(), "alice", c.now),
                 errc::failed_precondition, "its run 2 was deleted");
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST_F(runs, runs_that_do_not_qualify_are_answered_why_and_the_rest_acted_on) {
  c.run(c.core->submit_experiment(experiment(), "alice", c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  auto live = act({run_action::archive, {1, 9}, 1});
  EXPECT_EQ(result(live, 1), "Run is not in terminal state.") << live;
  EXPECT_EQ(result(live, 9),
            "Run with id '9' not found in project with id '1'");
  EXPECT_EQ(result(act({run_action::remove, {1}}), 1),
            "Run is not in a terminal state.");
  EXPECT_FALSE(c.trial(1).archived);
  // A run of another project is not found there.
  EXPECT_EQ(result(act({run_action::kill, {1}, 2}), 1),
            "Run with id '1' not found in project with id '2'");
  // Pause and resume act on the single-trial search.
  EXPECT_EQ(result(act({run_action::pause, {1}}), 1), "");
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::paused);
  EXPECT_EQ(result(act({run_action::resume, {1}}), 1), "");
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::active);
  // A move to a project that does not exist: the master's refusal, per run.
  auto moved = act({run_action::move, {1}, 1, 42});
  EXPECT_EQ(result(moved, 1).rfind("Failed to move associated experiment: ", 0),
            0u)
      << moved;
  EXPECT_EQ(c.experiment(1).project_id, 1);
  // Kill, then the ended run counts as done; archive, then the archived
  // search's runs are left alone.
  EXPECT_EQ(result(act({run_action::kill, {1}}), 1), "");
  c.run(c.core->allocation_exited("1.1", 137, c.now));
  ASSERT_TRUE(state::is_terminal(c.experiment(1).status));
  EXPECT_EQ(result(act({run_action::kill, {1}}), 1), "");
  c.run(c.core->archive_experiment(1, true, "alice", c.now));
  EXPECT_EQ(result(act({run_action::archive, {1}}), 1),
            "Run is part of archived Search (id: '1').");
  EXPECT_EQ(result(act({run_action::pause, {1}}), 1), "Run is archived.");
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST_F(runs, pause_takes_single_trial_searches_and_move_may_skip_the_others) {
  auto cfg = experiment(10, 2, 1, "grid");
  cfg["hyperparameters"] = {
      {"lr", {{"type", "categorical"}, {"vals", {0.1, 0.2}}}}};
  c.run(c.core->submit_experiment(cfg, "alice", c.now));
  c.run(c.core->agent_connected("a1", "default", 2, "cpu", "", {}, c.now));
  ASSERT_EQ(c.experiment(1).trial_ids.size(), 2u);
  auto paused = act({run_action::pause, {1, 2}});
  EXPECT_EQ(result(paused, 1),
            "Cannot pause/unpause run '1' (part of multi-trial).");
  EXPECT_EQ(result(paused, 2),
            "Cannot pause/unpause run '2' (part of multi-trial).");
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::active);
  auto skipped = act({run_action::move, {1}, 1, 1, true});
  EXPECT_EQ(result(skipped, 1), "Skipping run '1' (part of multi-trial).");
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
