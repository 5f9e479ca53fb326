// `det agent enable/disable` as one core command
// (master_core::set_agent_enabled): a disabled agent gets no new trials;
// draining lets its trials finish, disabling without drain kills them at
// once (not counted as a restart) so they are placed elsewhere; enabling places
// pending work at once. Every decision replays to the same state.

#include "tests/core/core_cluster.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;

/// One trial running on agent a1 (2 slots); agent a2 (1 slot) idle.
struct one_running : cluster {
  std::string alloc;

  one_running() {
    run(core->submit_experiment(test::experiment(), "alice", now));
    run(core->agent_connected("a1", "default", 2, "cpu", "", {}, now));
    alloc = state::find_trial(core->state(), 1)->allocation->id;
    run(core->allocation_running(alloc, now));
    run(core->agent_connected("a2", "default", 1, "cpu", "", {}, now));
  }
};

TEST(agent_enable, draining_lets_running_trials_finish_and_places_nothing_new) {
  one_running c;
  auto d = c.run(c.core->set_agent_enabled("a1", false, true, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  ASSERT_EQ(d.events.size(), 1u);
  EXPECT_TRUE(std::get<agent_disabled>(d.events[0]).drain);
  EXPECT_FALSE(c.trial(1).allocation->preemption_requested);
  // A new trial goes to a2, never to the draining a1 (which has a free slot).
  c.run(c.core->submit_experiment(experiment(), "alice", c.now));
  ASSERT_TRUE(c.trial(2).allocation);
  EXPECT_EQ(c.trial(2).allocation->assignments.at(0).agent_id, "a2");
  // A third waits rather than use a1.
  c.run(c.core->submit_experiment(experiment(), "alice", c.now));
  EXPECT_EQ(c.trial(3).status, state::trial_status::pending);
  EXPECT_TRUE(c.replayed() == c.core->state());
}

TEST(agent_enable, disabling_without_drain_kills_its_trials_without_a_restart) {
  one_running c;
  auto d = c.run(c.core->set_agent_enabled("a1", false, false, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  ASSERT_EQ(d.events.size(), 2u);
  EXPECT_FALSE(std::get<agent_disabled>(d.events[0]).drain);
  auto p = std::get<trial_preemption_requested>(d.events[1]);
  EXPECT_EQ(p.reason, "agent_disabled");
  bool ordered = false;
  for (const auto& e : d.effects)
    if (auto o = std::get_if<kill_order>(&e))
      ordered = o->agent_id == "a1";
  EXPECT_TRUE(ordered);
  // Killed (SIGKILL's exit code), it is placed again on a2, and the kill
  // is not counted against max_restarts.
  c.run(c.core->allocation_exited(c.alloc, 137, c.now));
  EXPECT_EQ(c.trial(1).restarts, 0);
  EXPECT_NE(c.trial(1).status, state::trial_status::errored);
  ASSERT_TRUE(c.trial(1).allocation);
  EXPECT_EQ(c.trial(1).allocation->assignments.at(0).agent_id, "a2");
  EXPECT_TRUE(c.replayed() == c.core->state());
}

TEST(agent_enable, enabling_places_pending_work_at_once) {
  one_running c;
  c.run(c.core->set_agent_enabled("a2", false, true, c.now));
  c.run(c.core->submit_experiment(experiment(), "alice", c.now));
  c.run(c.core->submit_experiment(experiment(), "alice", c.now));
  // a1 has one free slot: trial 2 takes it, trial 3 waits for a2.
  EXPECT_EQ(c.trial(3).status, state::trial_status::pending);
  auto d = c.run(c.core->set_agent_enabled("a2", true, false, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_TRUE(std::holds_alternative<agent_enabled>(d.events.at(0)));
  ASSERT_TRUE(c.trial(3).allocation);
  EXPECT_EQ(c.trial(3).allocation->assignments.at(0).agent_id, "a2");
  EXPECT_TRUE(c.replayed() == c.core->state());
}

TEST(agent_enable, asking_for_the_state_it_is_in_writes_nothing) {
  one_running c;
  auto before = c.core->state().position;
  EXPECT_TRUE(c.run(c.core->set_agent_enabled("a1", true, false, c.now))
                  .events.empty());
  c.run(c.core->set_agent_enabled("a1", false, true, c.now));
  before = c.core->state().position;
  auto again = c.run(c.core->set_agent_enabled("a1", false, true, c.now));
  EXPECT_FALSE(again.refusal);
  EXPECT_TRUE(again.events.empty());
  EXPECT_EQ(c.core->state().position, before);
}

TEST(agent_enable,
     an_unknown_or_disconnected_agent_is_refused_and_nothing_written) {
  one_running c;
  auto before = c.core->state().position;
  auto d = c.core->set_agent_enabled("nope", false, true, c.now);
  EXPECT_EQ(code_of(d.refusal), errc::not_found);
  EXPECT_TRUE(d.events.empty());
  c.run(c.core->agent_disconnected("a2", "test", c.now));
  before = c.core->state().position;
  d = c.core->set_agent_enabled("a2", false, true, c.now);
  EXPECT_EQ(code_of(d.refusal), errc::invalid_argument);
  EXPECT_TRUE(d.events.empty());
  EXPECT_EQ(c.core->state().position, before);
}

} // namespace
} // namespace det
