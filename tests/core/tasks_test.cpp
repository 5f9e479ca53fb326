// Tasks as master_core decides them (core/master_core_tasks.cpp): a
// command launched is placed on free slots beside trials, started, runs,
// exits; killed while queued or running; never preempted; a zero-slot task
// takes no slot; an agent's report after a restart; replay gives the same
// state.

#include "tests/core/core_cluster.hpp"

#include "core/records_parse.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;
using json = nlohmann::json;
using tst = state::task_state;

const std::string task_a = "0a1b2c3d-0000-4000-8000-00000000000a";
const std::string task_b = "0a1b2c3d-0000-4000-8000-00000000000b";

struct tasks : ::testing::Test {
  cluster c;

  decision launch(const std::string& id, int32_t slots = 1,
                  const std::string& user = "alice",
                  const std::string& pool = "default", int64_t workspace = 1,
                  int32_t priority = 42, const std::string& type = "") {
    task_launch t;
    t.task_id = id;
    t.task_type = !type.empty() ? type : slots == 0 ? "TENSORBOARD" : "COMMAND";
    t.owner = user;
    t.description = "Command (able-ant)";
    t.config = {{"entrypoint", json::array({"echo hello"})}};
    t.pool = pool;
    t.slots = slots;
    t.priority = priority;
    t.workspace_id = workspace;
    return c.run(c.core->decide(t, c.now));
  }

  const state::task_info& task(const std::string& id) {
    return c.core->state().tasks.at(id);
  }

  void expect_sound() {
    EXPECT_EQ(state::check_invariants(c.core->state()),
              std::vector<std::string>{});
    EXPECT_EQ(c.replayed(), c.core->state());
  }
};

TEST_F(tasks, a_command_is_placed_started_runs_and_exits_freeing_its_slot) {
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  auto d = launch(task_a);
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply["task_id"], task_a);
  EXPECT_EQ(task(task_a).state, tst::starting);
  EXPECT_EQ(task(task_a).allocation_id, task_a + ".1");
  EXPECT_EQ(c.core->state().agents.at("a1").slots[0], task_a + ".1");
  auto starts = effects_of<task_start_order>(d);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].agent_id, "a1");
  EXPECT_EQ(starts[0].owner, "alice");
  EXPECT_EQ(starts[0].config["entrypoint"][0], "echo hello");

  c.run(c.core->allocation_running(task_a + ".1", c.now));
  EXPECT_EQ(task(task_a).state, tst::running);
  c.run(c.core->allocation_exited(task_a + ".1", 0, c.now));
  EXPECT_EQ(task(task_a).state, tst::terminated);
  EXPECT_EQ(task(task_a).exit_reason, "completed");
  EXPECT_EQ(task(task_a).exit_message, "allocation exited successfully");
  EXPECT_TRUE(c.core->state().agents.at("a1").slots[0].empty());
  expect_sound();
}

TEST_F(tasks, a_task_waits_for_a_slot_and_is_never_preempted_by_a_trial) {
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  launch(task_a);
  // More urgent than the trial below (a smaller priority goes first).
  auto d = launch(task_b, 1, "alice", "default", 1, 10);
  EXPECT_EQ(task(task_b).state, tst::queued);
  EXPECT_TRUE(effects_of<task_start_order>(d).empty());
  // An experiment's trial waits too: the command holds the only slot.
  auto sub =
      c.run(c.core->submit_experiment(experiment(), "determined", c.now));
  EXPECT_TRUE(effects_of<preempt_order>(sub).empty());
  EXPECT_TRUE(effects_of<start_order>(sub).empty());
  EXPECT_EQ(c.core->state().agents.at("a1").slots[0], task_a + ".1");
  // Once the first exits, the queued one gets the slot before the trial.
  d = c.run(c.core->allocation_exited(task_a + ".1", 1, c.now));
  EXPECT_EQ(task(task_a).exit_reason, "failed");
  EXPECT_EQ(task(task_a).exit_message,
            "resources failed with non-zero exit code: 1");
  EXPECT_EQ(task(task_b).state, tst::starting);
  EXPECT_EQ(effects_of<task_start_order>(d).size(), 1u);
  expect_sound();
}

TEST_F(tasks, killing_a_queued_task_ends_it_and_a_running_one_is_asked_first) {
  auto d = launch(task_a);
  EXPECT_EQ(task(task_a).state, tst::queued);
  d = c.run(c.core->decide(task_kill{task_a, "alice"}, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(task(task_a).state, tst::terminated);
  EXPECT_EQ(task(task_a).exit_reason, "killed");

  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  launch(task_b);
  c.run(c.core->allocation_running(task_b + ".1", c.now));
  d = c.run(c.core->decide(task_kill{task_b, "bob"}, c.now));
  EXPECT_EQ(task(task_b).state, tst::terminating);
  auto kills = effects_of<kill_order>(d);
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].allocation_id, task_b + ".1");
  // A second kill while it ends changes nothing.
  d = c.run(c.core->decide(task_kill{task_b, "bob"}, c.now));
  EXPECT_TRUE(d.events.empty());
  c.run(c.core->allocation_exited(task_b + ".1", 137, c.now));
  EXPECT_EQ(task(task_b).exit_reason, "killed");
  EXPECT_EQ(task(task_b).kill_requested_by, "bob");
  expect_sound();
}

TEST_F(tasks, bad_launches_and_unknown_tasks_are_refused_naming_why) {
  expect_refused(launch(task_a, 1, "alice", "nowhere"), errc::invalid_argument,
                 "resources.resource_pool");
  expect_refused(launch(task_a, 1, "alice", "default", 7), errc::not_found,
                 "workspace not found");
  // An archived workspace is as good as none (upstream: 404).
  auto made = c.run(decide_parsed(
      *c.core, parse_workspace_create({{"name", "old"}}), "alice", c.now));
  auto ws = made.reply.value("id", int64_t{0});
  ASSERT_GT(ws, 1) << made.reply.dump();
  auto archived =
      c.run(c.core->decide(workspace_archive{ws, true, "alice"}, c.now));
  ASSERT_FALSE(archived.refusal) << render(archived.refusal);
  expect_refused(launch(task_a, 1, "alice", "default", ws), errc::not_found,
                 "workspace not found");
  launch(task_a);
  expect_refused(launch(task_a), errc::conflict, "already exists");
  expect_refused(c.core->decide(task_kill{task_b, "alice"}, c.now),
                 errc::not_found, "task not found");
  expect_refused(
      c.core->decide(task_priority_change{task_a, 0, "alice"}, c.now),
      errc::invalid_argument, "priority");
  expect_sound();
}

TEST_F(tasks, a_zero_slot_task_runs_on_an_agent_without_taking_a_slot) {
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  launch(task_a);
  auto d = launch(task_b, 0);
  EXPECT_EQ(task(task_b).state, tst::starting);
  EXPECT_EQ(task(task_b).agent_id, "a1");
  EXPECT_TRUE(task(task_b).agent_slots.empty());
  EXPECT_EQ(effects_of<task_start_order>(d).size(), 1u);
  // Losing the agent ends both.
  c.run(c.core->agent_disconnected("a1", "closed", c.now));
  c.now += 31 * sec;
  c.run(c.core->tick(c.now));
  EXPECT_EQ(task(task_a).exit_reason, "agent_lost");
  EXPECT_EQ(task(task_b).exit_reason, "agent_lost");
  expect_sound();
}

TEST_F(tasks, an_agent_that_comes_back_without_a_running_task_loses_it) {
  c.run(c.core->agent_connected("a1", "default", 2, "cpu", "", {}, c.now));
  launch(task_a);
  launch(task_b);
  c.run(c.core->allocation_running(task_a + ".1", c.now));
  c.run(c.core->agent_disconnected("a1", "closed", c.now));
  // It reconnects knowing neither: the running one is lost, the one that
  // never started is sent again.
  auto d =
      c.run(c.core->agent_connected("a1", "default", 2, "cpu", "", {}, c.now));
  EXPECT_EQ(task(task_a).state, tst::terminated);
  EXPECT_EQ(task(task_a).exit_reason, "agent_lost");
  auto starts = effects_of<task_start_order>(d);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].task_id, task_b);
  // A running task it reports is kept and never killed.
  c.run(c.core->allocation_running(task_b + ".1", c.now));
  c.run(c.core->agent_disconnected("a1", "closed", c.now));
  d = c.run(c.core->agent_connected("a1", "default", 2, "cpu", "",
                                    {reported_allocation{task_b + ".1"}},
                                    c.now));
  EXPECT_TRUE(effects_of<kill_order>(d).empty());
  EXPECT_EQ(task(task_b).state, tst::running);
  expect_sound();
}

TEST_F(tasks, terminated_tasks_are_forgotten_after_their_time) {
  launch(task_a);
  c.run(c.core->decide(task_kill{task_a, "alice"}, c.now));
  auto ended = task(task_a).ended_at_us;
  c.run(c.core->forget_tasks(ended - 1, c.now));
  EXPECT_EQ(c.core->state().tasks.count(task_a), 1u);
  c.run(c.core->forget_tasks(ended, c.now));
  EXPECT_EQ(c.core->state().tasks.count(task_a), 0u);
  // The tick forgets what ended 24 h ago, and nothing younger.
  launch(task_b);
  c.run(c.core->decide(task_kill{task_b, "alice"}, c.now));
  c.now += 24 * 3600 * sec - 1;
  c.run(c.core->tick(c.now));
  EXPECT_EQ(c.core->state().tasks.count(task_b), 1u);
  c.now += 1;
  c.run(c.core->tick(c.now));
  EXPECT_EQ(c.core->state().tasks.count(task_b), 0u);
  expect_sound();
}

TEST_F(tasks, a_paused_generic_task_frees_its_slot_is_kept_and_runs_again) {
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  launch(task_a, 1, "alice", "default", 1, 42, "GENERIC");
  c.run(c.core->allocation_running(task_a + ".1", c.now));
  auto d = c.run(c.core->decide(task_pause{task_a, "alice"}, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  ASSERT_EQ(effects_of<kill_order>(d).size(), 1u);
  EXPECT_TRUE(task(task_a).pausing);
  c.run(c.core->allocation_exited(task_a + ".1", 137, c.now));
  EXPECT_TRUE(state::is_paused(task(task_a)));
  EXPECT_EQ(task(task_a).exit_message, "paused by alice");
  EXPECT_TRUE(c.core->state().agents.at("a1").slots[0].empty());
  // Kept a day later while the ended ones go.
  c.now += 25 * 3600 * sec;
  c.run(c.core->tick(c.now));
  ASSERT_EQ(c.core->state().tasks.count(task_a), 1u);
  d = c.run(c.core->decide(task_unpause{task_a, "alice"}, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(task(task_a).state, tst::starting);
  EXPECT_EQ(task(task_a).allocation_id, task_a + ".2");
  EXPECT_EQ(task(task_a).allocations, 2);
  EXPECT_EQ(effects_of<task_start_order>(d).at(0).allocation_id, task_a + ".2");
  // A command does not pause, and a task that is not paused does not
  // unpause.
  launch(task_b);
  auto refused = c.core->decide(task_pause{task_b, "alice"}, c.now);
  EXPECT_EQ(code_of(refused.refusal), errc::invalid_argument);
  refused = c.core->decide(task_unpause{task_a, "alice"}, c.now);
  EXPECT_EQ(code_of(refused.refusal), errc::failed_precondition);
  expect_sound();
}

TEST_F(tasks,
       an_ended_generic_task_is_not_canceled_but_an_ended_command_is_a_no_op) {
  c.run(c.core->agent_connected("a1", "default", 2, "cpu", "", {}, c.now));
  launch(task_a, 1, "alice", "default", 1, 42, "GENERIC");
  c.run(c.core->allocation_running(task_a + ".1", c.now));
  c.run(c.core->allocation_exited(task_a + ".1", 0, c.now));
  ASSERT_EQ(task(task_a).exit_reason, "completed");
  auto refused = c.core->decide(task_kill{task_a, "alice"}, c.now);
  EXPECT_EQ(code_of(refused.refusal), errc::failed_precondition);
  EXPECT_NE(render(refused.refusal)
                .find("cannot cancel task " + task_a
                      + " as it is in state 'COMPLETED'"),
            std::string::npos)
      << render(refused.refusal);
  EXPECT_TRUE(refused.events.empty());
  // A canceled one: refused as CANCELED, with kill_from_root too.
  launch(task_b, 1, "alice", "default", 1, 42, "GENERIC");
  c.run(c.core->allocation_running(task_b + ".1", c.now));
  c.run(c.core->decide(task_kill{task_b, "alice"}, c.now));
  c.run(c.core->allocation_exited(task_b + ".1", 137, c.now));
  ASSERT_EQ(task(task_b).exit_reason, "killed");
  refused = c.core->decide(task_kill{task_b, "alice", "", true}, c.now);
  EXPECT_NE(render(refused.refusal).find("'CANCELED'"), std::string::npos);
  // A command that ended: killing it again changes nothing, as upstream.
  const std::string cmd = "0a1b2c3d-0000-4000-8000-00000000000c";
  launch(cmd);
  c.run(c.core->decide(task_kill{cmd, "alice"}, c.now));
  auto again = c.run(c.core->decide(task_kill{cmd, "alice"}, c.now));
  EXPECT_FALSE(again.refusal) << render(again.refusal);
  EXPECT_TRUE(again.events.empty());
  expect_sound();
}

TEST_F(tasks, deleting_a_workspace_kills_its_tasks_and_no_others) {
  c.run(c.core->agent_connected("a1", "default", 2, "cpu", "", {}, c.now));
  auto made = c.run(decide_parsed(
      *c.core, parse_workspace_create({{"name", "scratch"}}), "alice", c.now));
  ASSERT_FALSE(made.refusal) << render(made.refusal);
  auto ws = made.reply.value("id", int64_t{0});
  ASSERT_GT(ws, 1) << made.reply.dump();
  launch(task_a, 1, "alice", "default", ws);
  launch(task_b, 1, "alice", "default", 1);
  c.run(c.core->allocation_running(task_a + ".1", c.now));
  auto d = c.run(c.core->decide(workspace_delete{ws, "alice"}, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(task(task_a).state, tst::terminating);
  EXPECT_EQ(task(task_a).kill_reason, "its workspace was deleted");
  ASSERT_EQ(effects_of<kill_order>(d).size(), 1u);
  EXPECT_EQ(task(task_b).state, tst::starting);
  expect_sound();
}

TEST_F(tasks, disabling_an_agent_kills_its_tasks_but_draining_does_not) {
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  launch(task_a, 0); // a zero-slot task runs there too
  c.run(c.core->allocation_running(task_a + ".1", c.now));
  c.run(c.core->set_agent_enabled("a1", false, true, c.now)); // drain
  EXPECT_EQ(task(task_a).state, tst::running);
  auto d = c.run(c.core->set_agent_enabled("a1", false, false, c.now));
  EXPECT_EQ(task(task_a).state, tst::terminating);
  EXPECT_EQ(task(task_a).kill_reason, "its agent was disabled");
  EXPECT_EQ(effects_of<kill_order>(d).size(), 1u);
  expect_sound();
}

} // namespace
} // namespace det
