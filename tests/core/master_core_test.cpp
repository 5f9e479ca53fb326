// master_core scenarios: every decision is appended to an in-memory log, so
// each test can also check that replaying the log rebuilds the same state.

#include "core/experiments_parse.hpp"
#include "tests/core/core_cluster.hpp"

#include "messages/errc.hpp"
#include "policy/pool_scheduler.hpp"
#include "state/queries.hpp"
#include "store/memory_event_store.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;

TEST(master_core,
     a_submitted_trial_is_placed_when_an_agent_connects_and_completes) {
  cluster h;
  auto sub =
      h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  ASSERT_FALSE(sub.refusal) << render(sub.refusal);
  EXPECT_EQ(sub.reply["experiment_id"], 1);
  EXPECT_TRUE(effects_of<start_order>(sub).empty()); // no agent yet
  auto join =
      h.run(h.core->agent_connected("a1", "default", 4, "cpu", "", {}, h.now));
  auto starts = effects_of<start_order>(join);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].agent_id, "a1");
  EXPECT_EQ(starts[0].allocation_id, "1.1");
  EXPECT_EQ(starts[0].target_length, 100);
  EXPECT_FALSE(starts[0].resume_from);
  h.run(h.core->allocation_running("1.1", h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::running);
  h.run(h.core->checkpoint_reported("1.1", "ck-100", 100, {}, h.now));
  auto val = h.run(h.core->metrics_reported("1.1", "validation", 100,
                                            {{"loss", 0.5}}, h.now));
  // The searcher has what it wanted: the trial is asked to finish.
  auto stops = effects_of<preempt_order>(val);
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].reason, "searcher closed");
  h.run(h.core->allocation_exited("1.1", 0, h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::completed);
  EXPECT_EQ(state::find_experiment(h.core->state(), 1)->status,
            state::experiment_status::completed);
  EXPECT_EQ(h.replayed(), h.core->state());
  EXPECT_TRUE(state::check_invariants(h.core->state()).empty());
}

// Found by fuzz_http_request: POST /api/v1/checkpoints with steps below the
// trial's latest checkpoint made the core decide an event the state
// refuses, and the trial got a 500 (invariant_violated) for its own
// mistake.
TEST(master_core, a_checkpoint_older_than_the_latest_is_refused_as_invalid) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  auto first =
      h.run(h.core->checkpoint_reported("1.1", "ck-10", 10, {}, h.now));
  ASSERT_FALSE(first.refusal) << render(first.refusal);
  auto older = h.run(h.core->checkpoint_reported("1.1", "ck-0", 0, {}, h.now));
  ASSERT_TRUE(older.refusal);
  EXPECT_EQ(code_of(older.refusal), errc::invalid_argument)
      << render(older.refusal);
  EXPECT_NE(render(older.refusal).find("steps_completed"), std::string::npos);
  EXPECT_TRUE(older.events.empty());
  auto same =
      h.run(h.core->checkpoint_reported("1.1", "ck-10b", 10, {}, h.now));
  EXPECT_FALSE(same.refusal) << render(same.refusal);
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(
    master_core,
    a_trial_on_a_lost_agent_resumes_elsewhere_from_its_checkpoint_without_counting_a_restart) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  h.run(h.core->checkpoint_reported("1.1", "ck-50", 50, {}, h.now));
  h.run(h.core->agent_disconnected("a1", "connection closed", h.now));
  // Within the reconnect wait nothing happens to the trial.
  h.now += 10 * sec;
  h.run(h.core->tick(h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::running);
  h.now += 21 * sec;
  h.run(h.core->tick(h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::pending);
  EXPECT_EQ(h.trial(1).restarts, 0);
  auto join =
      h.run(h.core->agent_connected("a2", "default", 1, "cpu", "", {}, h.now));
  auto starts = effects_of<start_order>(join);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].agent_id, "a2");
  EXPECT_EQ(starts[0].allocation_id, "1.2");
  ASSERT_TRUE(starts[0].resume_from);
  EXPECT_EQ(starts[0].resume_from->uuid, "ck-50");
  EXPECT_EQ(starts[0].resume_from->steps_completed, 50);
  EXPECT_EQ(h.replayed(), h.core->state());
}

// Found by the chaos suite: the trial trained to its target and the
// searcher closed it, then its agent was SIGKILLed before the trial's exit
// reached the master; the trial ended CANCELED and its experiment ERROR
// ("no trial completed"). A run that resumes from its latest checkpoint
// confirms the end instead.
TEST(
    master_core,
    a_trial_that_reached_its_target_on_an_agent_lost_before_its_exit_completes) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  h.run(h.core->checkpoint_reported("1.1", "ck-100", 100, {}, h.now));
  auto val = h.run(h.core->metrics_reported("1.1", "validation", 100,
                                            {{"loss", 0.5}}, h.now));
  ASSERT_EQ(effects_of<preempt_order>(val).size(), 1u);
  h.run(h.core->agent_disconnected("a1", "connection closed", h.now));
  h.now += 31 * sec;
  h.run(h.core->tick(h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::pending);
  EXPECT_EQ(h.trial(1).restarts, 0);
  EXPECT_EQ(state::find_experiment(h.core->state(), 1)->status,
            state::experiment_status::active);
  auto join =
      h.run(h.core->agent_connected("a2", "default", 1, "cpu", "", {}, h.now));
  auto starts = effects_of<start_order>(join);
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_TRUE(starts[0].resume_from);
  EXPECT_EQ(starts[0].resume_from->uuid, "ck-100");
  h.run(h.core->allocation_running("1.2", h.now));
  h.run(h.core->allocation_exited("1.2", 0, h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::completed);
  EXPECT_EQ(h.trial(1).restarts, 0);
  EXPECT_EQ(state::find_experiment(h.core->state(), 1)->status,
            state::experiment_status::completed);
  EXPECT_EQ(h.replayed(), h.core->state());
  EXPECT_TRUE(state::check_invariants(h.core->state()).empty());
}

TEST(master_core, a_failing_trial_is_restarted_up_to_max_restarts_then_errors) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(100, 2), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  for (int run = 1; run <= 3; ++run) {
    auto alloc = "1." + std::to_string(run);
    ASSERT_EQ(h.trial(1).allocation->id, alloc);
    h.run(h.core->allocation_running(alloc, h.now));
    h.run(h.core->allocation_exited(alloc, 3, h.now));
  }
  EXPECT_EQ(h.trial(1).status, state::trial_status::errored);
  EXPECT_EQ(h.trial(1).restarts, 3);
  EXPECT_NE(h.trial(1).end_reason.find("last exit code 3"), std::string::npos)
      << h.trial(1).end_reason;
  EXPECT_EQ(state::find_experiment(h.core->state(), 1)->status,
            state::experiment_status::error);
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(
    master_core,
    pausing_checkpoints_and_stops_and_activating_resumes_from_that_checkpoint) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  auto pause = h.run(h.core->pause_experiment(1, h.now));
  ASSERT_EQ(effects_of<preempt_order>(pause).size(), 1u);
  h.run(h.core->checkpoint_reported("1.1", "ck-30", 30, {}, h.now));
  h.run(h.core->allocation_exited("1.1", 0, h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::pending);
  EXPECT_EQ(h.trial(1).restarts, 0);
  auto idle = h.run(h.core->tick(h.now)); // paused: nothing is placed
  EXPECT_TRUE(effects_of<start_order>(idle).empty());
  auto act = h.run(h.core->activate_experiment(1, h.now));
  auto starts = effects_of<start_order>(act);
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_TRUE(starts[0].resume_from);
  EXPECT_EQ(starts[0].resume_from->uuid, "ck-30");
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core, an_edit_sets_only_what_it_names_and_refuses_bad_values) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  auto edit_of = [&](const nlohmann::json& patch, int64_t id = 1) {
    auto c = parse_experiment_edit(id, patch);
    if (!c) {
      ADD_FAILURE() << patch.dump() << ": " << render(c.error());
      return decision{};
    }
    c->username = "alice";
    return h.core->decide(*c, h.now);
  };
  auto edit = h.run(edit_of(
      {{"id", 1}, {"description", "line one\nline two"}, {"name", nullptr}}));
  ASSERT_FALSE(edit.refusal) << render(edit.refusal);
  ASSERT_EQ(edit.events.size(), 1u);
  const auto& e = *state::find_experiment(h.core->state(), 1);
  EXPECT_EQ(e.config["description"], "line one\nline two");
  EXPECT_EQ(e.config["name"], experiment()["name"]); // null kept it
  h.run(edit_of({{"labels", {"a", "b"}}, {"notes", "n"}, {"name", "renamed"}}));
  EXPECT_EQ(e.config["labels"], (nlohmann::json{"a", "b"}));
  EXPECT_EQ(e.notes, "n");
  EXPECT_EQ(e.config["name"], "renamed");
  // The same values again write nothing.
  EXPECT_TRUE(h.run(edit_of({{"notes", "n"}})).events.empty());
  for (const auto& [patch, field] :
       std::vector<std::pair<nlohmann::json, std::string>>{
           {{{"name", ""}}, "name"},
           {{{"name", "two\nlines"}}, "name"},
           {{{"labels", {"ok", 3}}}, "labels[1]"},
           {{{"description", std::string(20000, 'x')}}, "description"},
           {{{"id", 2}}, "id"},
           {{{"owner", "mallory"}}, "owner"},
           {{{"resources", {{"priority", 0}}}}, "resources.priority"},
           {{{"checkpointStorage", {{"saveAll", 1}}}},
            "checkpointStorage.saveAll"},
           {nlohmann::json::array(), "the patch must be a JSON object"}}) {
    auto bad = parse_experiment_edit(1, patch);
    ASSERT_FALSE(bad) << patch.dump();
    EXPECT_EQ(code_of(bad.error()), errc::invalid_argument);
    EXPECT_EQ(render(bad.error()).find("invalid_argument: " + field), 0u)
        << render(bad.error());
  }
  // A refusal quotes at most 64 bytes of what the client sent, without
  // its control characters: a megabyte-long key or value is not echoed.
  std::string huge(1 << 20, 'k');
  huge[3] = '\x1b';
  for (const auto& patch : std::vector<nlohmann::json>{
           {{huge, 1}},
           {{"id", huge}},
           {{"resources", {{"priority", huge}}}},
           {{"resources", {{huge, 1}}}},
           {{"checkpointStorage", {{huge, 1}}}},
           {{"checkpointStorage", {{"saveTrialBest", huge}}}}}) {
    auto bad = parse_experiment_edit(1, patch);
    ASSERT_FALSE(bad);
    auto text = render(bad.error());
    EXPECT_LT(text.size(), 300u) << text.substr(0, 300);
    EXPECT_EQ(text.find('\x1b'), std::string::npos);
    EXPECT_NE(text.find("kkk"), std::string::npos) << text; // quoted, cut
  }
  // What needs the state the core decides: whether the experiment exists.
  // Resources and the other fields change in one edit.
  EXPECT_EQ(code_of(edit_of(nlohmann::json::object(), 9).refusal),
            errc::not_found);
  auto renamed_and_lower =
      edit_of({{"name", "again"}, {"resources", {{"priority", 7}}}});
  ASSERT_FALSE(renamed_and_lower.refusal) << render(renamed_and_lower.refusal);
  h.run(std::move(renamed_and_lower));
  EXPECT_EQ(e.config["name"], "again");
  EXPECT_EQ(e.priority, 7);
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core, only_an_ended_experiment_is_archived) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  auto live = h.core->archive_experiment(1, true, "alice", h.now);
  ASSERT_TRUE(live.refusal);
  EXPECT_NE(render(live.refusal).find("only an ended experiment"),
            std::string::npos);
  h.run(h.core->kill_experiment(1, h.now));
  ASSERT_TRUE(
      state::is_terminal(state::find_experiment(h.core->state(), 1)->status));
  EXPECT_EQ(
      h.run(h.core->archive_experiment(1, true, "alice", h.now)).events.size(),
      1u);
  EXPECT_TRUE(state::find_experiment(h.core->state(), 1)->archived);
  EXPECT_TRUE(h.run(h.core->archive_experiment(1, true, "alice", h.now))
                  .events.empty());
  h.run(h.core->archive_experiment(1, false, "alice", h.now));
  EXPECT_FALSE(state::find_experiment(h.core->state(), 1)->archived);
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core, killing_the_only_trial_cancels_the_experiment) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  h.run(h.core->kill_trial(1, h.now));
  h.run(h.core->allocation_exited("1.1", 137, h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::canceled);
  const auto* e = state::find_experiment(h.core->state(), 1);
  EXPECT_EQ(e->status, state::experiment_status::canceled);
  EXPECT_EQ(e->status_reason, "every trial was killed");
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core, killing_a_trial_already_asked_to_stop_cancels_it) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  // Asked to checkpoint and stop (the pause), then killed before it did.
  h.run(h.core->pause_experiment(1, h.now));
  auto kill = h.run(h.core->kill_trial(1, h.now));
  EXPECT_EQ(effects_of<kill_order>(kill).size(), 1u);
  h.run(h.core->allocation_exited("1.1", 143, h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::canceled);
  EXPECT_EQ(h.trial(1).restarts, 0) << "the kill counted as a failure";
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core, killing_an_experiment_kills_running_trials_and_cancels_it) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(100, 2, 1, "random", 3),
                                  "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 2, "cpu", "", {}, h.now));
  auto kill = h.run(h.core->kill_experiment(1, h.now));
  EXPECT_EQ(effects_of<kill_order>(kill).size(), 2u);
  EXPECT_EQ(state::find_experiment(h.core->state(), 1)->status,
            state::experiment_status::stopping_killed);
  h.run(h.core->allocation_exited("1.1", 137, h.now));
  h.run(h.core->allocation_exited("2.1", 137, h.now));
  EXPECT_EQ(state::find_experiment(h.core->state(), 1)->status,
            state::experiment_status::canceled);
  for (auto t : state::trials_of_experiment(h.core->state(), 1))
    EXPECT_TRUE(state::is_terminal(t->status));
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core,
     canceling_an_experiment_asks_trials_to_checkpoint_and_stop_not_killed) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(100, 2, 1, "random", 3),
                                  "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 2, "cpu", "", {}, h.now));
  auto cancel = h.run(h.core->cancel_experiment(1, h.now));
  EXPECT_EQ(effects_of<kill_order>(cancel).size(), 0u);
  EXPECT_EQ(effects_of<preempt_order>(cancel).size(), 2u);
  EXPECT_EQ(state::find_experiment(h.core->state(), 1)->status,
            state::experiment_status::stopping_canceled);
  // The third trial was pending: canceled at once, never placed.
  EXPECT_EQ(h.trial(3).status, state::trial_status::canceled);
  // A kill during a cancel still kills.
  auto kill = h.run(h.core->kill_experiment(1, h.now));
  EXPECT_EQ(effects_of<kill_order>(kill).size(), 2u);
  h.run(h.core->allocation_exited("1.1", 0, h.now));
  h.run(h.core->allocation_exited("2.1", 0, h.now));
  EXPECT_EQ(state::find_experiment(h.core->state(), 1)->status,
            state::experiment_status::canceled);
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core,
     a_trial_larger_than_the_pool_can_ever_hold_fails_with_the_reason) {
  cluster h{config("local", 2, 4)};
  h.run(h.core->submit_experiment(experiment(100, 2, 16), "determined", h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::errored);
  EXPECT_NE(h.trial(1).end_reason.find("16"), std::string::npos)
      << h.trial(1).end_reason;
  EXPECT_EQ(state::find_experiment(h.core->state(), 1)->status,
            state::experiment_status::error);
}

TEST(master_core,
     after_a_master_restart_a_reconnecting_agent_keeps_its_running_trial) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 2, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  // The master is rebuilt from its log alone.
  master_core again{h.replayed(), config()};
  EXPECT_EQ(again.target_length(1), 100);
  auto start = again.start(h.now + sec);
  EXPECT_EQ(state::find_agent(again.state(), "a1")->status,
            state::agent_status::disconnected);
  auto back = again.agent_connected("a1", "default", 2, "cpu", "", {{"1.1"}},
                                    h.now + 2 * sec);
  EXPECT_TRUE(effects_of<start_order>(back).empty());
  EXPECT_EQ(state::find_trial(again.state(), 1)->status,
            state::trial_status::running);
  EXPECT_EQ(state::find_trial(again.state(), 1)->allocation->id, "1.1");
}

TEST(master_core,
     an_agent_that_comes_back_without_its_trial_gets_it_rescheduled) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  h.run(h.core->agent_disconnected("a1", "connection closed", h.now));
  auto back = h.run(
      h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now + sec));
  // The old run is gone; a new run starts on the same agent.
  auto starts = effects_of<start_order>(back);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].allocation_id, "1.2");
  EXPECT_EQ(h.trial(1).restarts, 0);
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core, a_second_connection_of_a_connected_agent_replaces_the_first) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  // The agent dialled again before the master saw its old socket end.
  auto again = h.run(h.core->agent_connected("a1", "default", 1, "cpu", "",
                                             {{"1.1"}}, h.now + sec));
  EXPECT_FALSE(again.refusal) << render(again.refusal);
  EXPECT_EQ(state::find_agent(h.core->state(), "a1")->status,
            state::agent_status::connected);
  EXPECT_EQ(h.trial(1).status, state::trial_status::running);
  EXPECT_TRUE(effects_of<start_order>(again).empty());
  EXPECT_TRUE(effects_of<kill_order>(again).empty());
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core,
     a_placement_the_agent_never_received_is_sent_again_when_it_says_hello) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  auto placed =
      h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  ASSERT_EQ(effects_of<start_order>(placed).size(), 1u);
  // The master died before its order reached the agent; the agent's hello
  // to the next master lists neither a run nor an exit of 1.1.
  master_core next(h.replayed(), config());
  auto restarted = next.start(h.now + sec);
  EXPECT_FALSE(restarted.refusal) << render(restarted.refusal);
  auto hello =
      next.agent_connected("a1", "default", 1, "cpu", "", {}, h.now + 2 * sec);
  EXPECT_FALSE(hello.refusal) << render(hello.refusal);
  for (const auto& ev : hello.events)
    EXPECT_EQ(std::get_if<trial_exited>(&ev), nullptr)
        << "a run that never started was ended as lost";
  auto starts = effects_of<start_order>(hello);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].allocation_id, "1.1");
  EXPECT_EQ(starts[0].agent_id, "a1");
  EXPECT_EQ(state::find_trial(next.state(), 1)->restarts, 0);
}

TEST(master_core,
     an_agent_back_after_its_trial_was_given_up_is_told_to_kill_the_stale_run) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  h.run(h.core->agent_disconnected("a1", "missed 3 heartbeats", h.now));
  // Past agent_reconnect_wait (30 s): the run is lost, the trial waits.
  h.run(h.core->tick(h.now + 31 * sec));
  EXPECT_EQ(h.trial(1).restarts, 0);
  EXPECT_FALSE(h.trial(1).allocation.has_value());
  auto back = h.run(h.core->agent_connected("a1", "default", 1, "cpu", "",
                                            {{"1.1"}}, h.now + 40 * sec));
  auto kills = effects_of<kill_order>(back);
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].allocation_id, "1.1");
  // The trial runs again, as a new allocation, on the agent that is back.
  auto starts = effects_of<start_order>(back);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_NE(starts[0].allocation_id, "1.1");
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core,
     an_experiment_for_an_unknown_pool_is_refused_and_writes_nothing) {
  cluster h;
  auto cfg = experiment();
  cfg["resources"]["resource_pool"] = "gpu";
  auto before = h.core->state().position;
  auto d = h.core->submit_experiment(cfg, "determined", h.now);
  ASSERT_TRUE(d.refusal);
  EXPECT_NE(render(d.refusal).find("resources.resource_pool"),
            std::string::npos);
  EXPECT_TRUE(d.events.empty());
  EXPECT_EQ(h.core->state().position, before);
}

} // namespace
} // namespace det

namespace det {
namespace {

// Found by the chaos suite: the provisioner terminated an idle agent's
// instance while an experiment's model definition was still being stored;
// once stored, its trial was placed on that agent, which went away under
// it. An agent on a terminating instance takes no new trial.
TEST(scheduling, no_trial_is_placed_on_an_agent_whose_instance_is_terminating) {
  test::cluster c{test::config("local", 2, 1)};
  c.run(c.core->decide(begin_launch{"default", 1, "tok-1", 1, false, c.now},
                       c.now));
  c.run(c.core->decide(
      launch_answered{"default", 1, 1, {"ag-1"}, {}, "", "", c.now}, c.now));
  provisioning_plan up;
  up.now_running = {"ag-1"};
  c.run(c.core->decide(provisioning_cycle{"default", up, c.now}, c.now));
  c.run(c.core->agent_connected("ag-1", "default", 1, "cpu", "", {}, c.now));
  provisioning_plan idle;
  idle.terminate = {{"ag-1", "idle"}};
  auto d =
      c.run(c.core->decide(provisioning_cycle{"default", idle, c.now}, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply["terminate"], nlohmann::json::array({"ag-1"}));
  c.run(c.core->submit_experiment(test::experiment(), "alice", c.now));
  EXPECT_FALSE(c.trial(1).allocation) << "placed on a terminating instance";
  EXPECT_EQ(c.trial(1).status, state::trial_status::pending);
  // Found by the chaos suite again: a pass the pool actor computed before
  // the termination was recorded still named the agent; its placement is
  // checked again when it comes back, and refused.
  policy::schedule_result stale;
  stale.placements.push_back({"1", {{"ag-1", {0}}}});
  c.run(c.core->apply_schedule("default", stale, c.now));
  EXPECT_FALSE(c.trial(1).allocation) << "a stale pass placed it";
  EXPECT_EQ(c.trial(1).status, state::trial_status::pending);
}

} // namespace
} // namespace det

namespace det {
namespace {

// A provisioner's cycle is planned on a view of the state that may be
// stale by the time it arrives: what still follows is recorded, what no
// longer does is left out and named, and only the terminations recorded
// are handed back to be carried out.
TEST(provisioning, a_cycle_records_what_still_follows_and_names_what_not) {
  test::cluster c{test::config("local", 2, 1)};
  c.run(c.core->decide(begin_launch{"default", 1, "tok-1", 2, false, c.now},
                       c.now));
  c.run(c.core->decide(
      launch_answered{"default", 1, 2, {"i-1", "i-2"}, {}, "", "", c.now},
      c.now));
  auto before = c.core->state().position;
  provisioning_plan p;
  p.now_running = {"i-1", "i-9"};
  p.terminate = {{"i-2", "idle"}, {"i-8", "idle"}};
  auto d =
      c.run(c.core->decide(provisioning_cycle{"default", p, c.now}, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.events.size(), 2u);
  EXPECT_EQ(c.core->state().position, before + 2);
  EXPECT_EQ(d.reply["terminate"], nlohmann::json::array({"i-2"}));
  ASSERT_EQ(d.reply["skipped"].size(), 2u);
  EXPECT_NE(d.reply["skipped"][0].get<std::string>().find("i-9"),
            std::string::npos);
  EXPECT_NE(d.reply["skipped"][1].get<std::string>().find("i-8"),
            std::string::npos);
  // The same termination again is left out: it is under way.
  auto again =
      c.run(c.core->decide(provisioning_cycle{"default", p, c.now}, c.now));
  EXPECT_EQ(again.reply["terminate"], nlohmann::json::array());
  EXPECT_EQ(c.replayed(), c.core->state());
}

// A launch the cloud answered with fewer instances than asked closes as
// partial; one it refused is recorded failed (the backoff resumes from it).
TEST(provisioning, a_launch_answer_records_its_instances_or_its_failure) {
  test::cluster c{test::config("local", 2, 1)};
  c.run(c.core->decide(begin_launch{"default", 1, "tok-1", 3, false, c.now},
                       c.now));
  auto d = c.run(c.core->decide(
      launch_answered{"default", 1, 3, {"i-1", "i-2"}, {}, "", "", c.now},
      c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  ASSERT_EQ(d.events.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<instance_pending>(d.events[0]));
  EXPECT_TRUE(std::holds_alternative<instance_pending>(d.events[1]));
  auto partial = std::get_if<instance_launch_failed>(&d.events[2]);
  ASSERT_NE(partial, nullptr);
  EXPECT_EQ(partial->error_kind, "partial");
  EXPECT_EQ(partial->message, "2 of 3");
  // A spot request for a launch that was not a spot launch is the
  // provider's lie: refused, and nothing of the answer is written.
  c.run(c.core->decide(begin_launch{"default", 2, "tok-2", 1, false, c.now},
                       c.now));
  auto lie = c.core->decide(
      launch_answered{"default", 2, 1, {}, {"sir-1"}, "", "", c.now}, c.now);
  EXPECT_TRUE(lie.refusal);
  EXPECT_TRUE(lie.events.empty());
  c.run(c.core->decide(begin_launch{"default", 3, "tok-3", 1, false, c.now},
                       c.now));
  auto failed = c.run(c.core->decide(
      launch_answered{
          "default", 3, 1, {}, {}, "insufficient_capacity", "no room", c.now},
      c.now));
  ASSERT_EQ(failed.events.size(), 1u);
  EXPECT_EQ(std::get<instance_launch_failed>(failed.events[0]).error_kind,
            "insufficient_capacity");
  auto unknown =
      c.core->decide(begin_launch{"gpu", 1, "tok-3", 1, false, c.now}, c.now);
  EXPECT_EQ(code_of(unknown.refusal), errc::not_found);
  EXPECT_EQ(c.replayed(), c.core->state());
}

} // namespace
} // namespace det
