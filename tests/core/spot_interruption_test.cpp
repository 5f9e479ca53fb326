// The spot-interruption drain as one command (master_core::spot_interruption):
// the agent's drain and every preemption request are decided against the
// master's own state and appended together, so a trial that ends just
// before the notice cannot make the drain be refused and lost.

#include "tests/core/core_cluster.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;

/// Two experiments of one trial each, both running on agent a1.
struct two_trials_on_one_agent : cluster {
  std::string alloc1, alloc2;

  two_trials_on_one_agent() {
    run(core->submit_experiment(test::experiment(), "alice", now));
    run(core->submit_experiment(test::experiment(), "alice", now));
    run(core->agent_connected("a1", "default", 2, "cpu", "", {}, now));
    alloc1 = allocation_of(1);
    alloc2 = allocation_of(2);
    run(core->allocation_running(alloc1, now));
    run(core->allocation_running(alloc2, now));
  }

  std::string allocation_of(int64_t trial) {
    auto t = state::find_trial(core->state(), trial);
    EXPECT_TRUE(t != nullptr && t->allocation) << "trial " << trial;
    return t != nullptr && t->allocation ? t->allocation->id : "";
  }
};

TEST(spot_interruption, drains_the_agent_and_asks_its_trials_in_one_append) {
  two_trials_on_one_agent c;
  auto before = c.core->state().position;
  auto d = c.run(c.core->spot_interruption("a1", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply.at("trials").get<int64_t>(), 2);
  ASSERT_EQ(d.events.size(), 3u);
  auto drain = std::get_if<agent_disabled>(&d.events[0]);
  ASSERT_NE(drain, nullptr);
  EXPECT_TRUE(drain->drain);
  for (size_t i = 1; i < 3; ++i) {
    auto p = std::get_if<trial_preemption_requested>(&d.events[i]);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->reason, "spot_interruption");
  }
  size_t preempts = 0;
  for (const auto& e : d.effects)
    if (auto p = std::get_if<preempt_order>(&e)) {
      ++preempts;
      EXPECT_EQ(p->agent_id, "a1");
    }
  EXPECT_EQ(preempts, 2u);
  EXPECT_EQ(c.core->state().position, before + 3);
  EXPECT_TRUE(c.replayed() == c.core->state());
}

TEST(spot_interruption,
     a_trial_that_ended_just_before_does_not_lose_the_drain) {
  two_trials_on_one_agent c;
  // Trial 1 ends between the agent's notice and the master's decision.
  c.run(c.core->allocation_exited(c.alloc1, 0, c.now));
  auto d = c.run(c.core->spot_interruption("a1", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply.at("trials").get<int64_t>(), 1);
  auto st = c.replayed();
  EXPECT_FALSE(state::find_agent(st, "a1")->enabled);
  auto t2 = state::find_trial(st, 2);
  ASSERT_TRUE(t2->allocation);
  EXPECT_TRUE(t2->allocation->preemption_requested);
  EXPECT_EQ(t2->allocation->preemption_reason, "spot_interruption");
  EXPECT_TRUE(st == c.core->state());
  EXPECT_TRUE(state::check_invariants(st).empty());
}

TEST(spot_interruption, a_repeated_notice_changes_nothing) {
  two_trials_on_one_agent c;
  c.run(c.core->spot_interruption("a1", c.now));
  auto before = c.core->state().position;
  auto again = c.run(c.core->spot_interruption("a1", c.now));
  EXPECT_FALSE(again.refusal);
  EXPECT_TRUE(again.events.empty());
  EXPECT_EQ(again.reply.at("trials").get<int64_t>(), 0);
  EXPECT_EQ(c.core->state().position, before);
}

TEST(spot_interruption, an_unknown_agent_is_not_found_and_writes_nothing) {
  two_trials_on_one_agent c;
  auto before = c.core->state().position;
  auto d = c.core->spot_interruption("a-unknown", c.now);
  EXPECT_EQ(code_of(d.refusal), errc::not_found);
  EXPECT_TRUE(d.events.empty());
  EXPECT_EQ(c.core->state().position, before);
}

TEST(spot_interruption, a_drained_agent_gets_no_new_trials) {
  two_trials_on_one_agent c;
  c.run(c.core->spot_interruption("a1", c.now));
  c.run(c.core->allocation_exited(c.alloc1, 0, c.now));
  c.run(c.core->allocation_exited(c.alloc2, 0, c.now));
  c.run(c.core->submit_experiment(experiment(), "alice", c.now));
  auto t3 = state::find_trial(c.core->state(), 3);
  ASSERT_NE(t3, nullptr);
  EXPECT_EQ(t3->status, state::trial_status::pending);
}

} // namespace
} // namespace det
