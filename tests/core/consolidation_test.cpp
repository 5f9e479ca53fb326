// Consolidation as a core command (master_core::consolidate_pool): off
// unless the pool's settings name it; when the plan empties an agent, the
// agent is drained and its trials asked to checkpoint in one append, and
// the scheduler places them again on the agent with room.

#include "tests/core/core_cluster.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;

core_config consolidating(bool on) {
  auto cfg = config("aws", 10, 8);
  if (on)
    cfg.consolidation["default"] = policy::consolidation_config{};
  return cfg;
}

/// a1 (8 slots) runs trial 1 (1 slot) alone; a2 (8 slots) runs trial 2
/// (5 slots). Both trials have run since `now`.
struct lone_trial : cluster {
  explicit lone_trial(bool on) : cluster(consolidating(on)) {
    run(core->agent_connected("a1", "default", 8, "cpu", "", {}, now));
    run(core->submit_experiment(test::experiment(100, 2, 1), "alice", now));
    run(core->allocation_running(trial(1).allocation->id, now));
    // Keep trial 2 off a1 (best fit would put it there).
    run(core->set_agent_enabled("a1", false, true, now));
    run(core->agent_connected("a2", "default", 8, "cpu", "", {}, now));
    run(core->submit_experiment(test::experiment(100, 2, 5), "alice", now));
    run(core->allocation_running(trial(2).allocation->id, now));
    run(core->set_agent_enabled("a1", true, false, now));
  }
};

TEST(consolidation, a_lone_trial_is_asked_to_move_after_the_period) {
  lone_trial c{true};
  ASSERT_EQ(c.trial(1).allocation->assignments.at(0).agent_id, "a1");
  ASSERT_EQ(c.trial(2).allocation->assignments.at(0).agent_id, "a2");
  // The first pass sees a1 under-used; ten minutes later it acts.
  auto first = c.run(c.core->consolidate_pool("default", c.now));
  EXPECT_TRUE(first.events.empty());
  c.now += 9 * 60 * sec;
  EXPECT_TRUE(c.run(c.core->consolidate_pool("default", c.now)).events.empty());
  c.now += 60 * sec;
  auto d = c.run(c.core->consolidate_pool("default", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply.at("trials").get<int64_t>(), 1);
  ASSERT_EQ(d.events.size(), 2u);
  auto drain = std::get_if<agent_disabled>(&d.events[0]);
  ASSERT_NE(drain, nullptr);
  EXPECT_EQ(drain->agent_id, "a1");
  EXPECT_TRUE(drain->drain);
  EXPECT_TRUE(drain->retire) << "the provisioner would wait its idle period";
  auto p = std::get_if<trial_preemption_requested>(&d.events[1]);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->trial_id, 1);
  EXPECT_EQ(p->reason, "consolidation");
  auto orders = effects_of<preempt_order>(d);
  ASSERT_EQ(orders.size(), 1u);
  EXPECT_EQ(orders[0].agent_id, "a1");
  EXPECT_TRUE(c.replayed() == c.core->state());

  // The trial checkpoints and exits; the scheduler places it on a2.
  c.run(c.core->allocation_exited(c.trial(1).allocation->id, 0, c.now));
  ASSERT_TRUE(c.trial(1).allocation);
  EXPECT_EQ(c.trial(1).allocation->assignments.at(0).agent_id, "a2");
  EXPECT_TRUE(c.replayed() == c.core->state());
  EXPECT_TRUE(state::check_invariants(c.core->state()).empty());
}

TEST(consolidation, the_master_tick_runs_it_for_pools_that_turned_it_on) {
  lone_trial c{true};
  EXPECT_TRUE(c.run(c.core->tick(c.now)).events.empty());
  c.now += 10 * 60 * sec;
  auto d = c.run(c.core->tick(c.now));
  ASSERT_EQ(d.events.size(), 2u);
  EXPECT_TRUE(std::get<agent_disabled>(d.events[0]).drain);
  EXPECT_EQ(std::get<trial_preemption_requested>(d.events[1]).reason,
            "consolidation");
  EXPECT_TRUE(c.replayed() == c.core->state());
}

TEST(consolidation, is_off_unless_the_pool_turns_it_on) {
  lone_trial c{false};
  c.run(c.core->consolidate_pool("default", c.now));
  c.now += 60 * 60 * sec;
  auto d = c.run(c.core->consolidate_pool("default", c.now));
  EXPECT_TRUE(d.events.empty());
  EXPECT_TRUE(d.effects.empty());
  EXPECT_TRUE(c.run(c.core->tick(c.now)).events.empty());
}

TEST(consolidation, a_waiting_trial_keeps_every_agent) {
  lone_trial c{true};
  c.run(c.core->consolidate_pool("default", c.now));
  // Eight slots fit on neither agent: the trial waits (for an instance).
  c.run(c.core->submit_experiment(test::experiment(100, 2, 8), "alice", c.now));
  ASSERT_EQ(c.trial(3).status, state::trial_status::pending);
  c.now += 60 * 60 * sec;
  EXPECT_TRUE(c.run(c.core->consolidate_pool("default", c.now)).events.empty());
}

} // namespace
} // namespace det
