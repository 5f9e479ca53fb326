// A Kubernetes pool's capacity as one core command
// (master_core::set_agent_slots): more slots place a waiting trial at once,
// fewer never take a slot in use, the count already held writes nothing,
// and every decision replays to the same state.

#include "tests/core/core_cluster.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;

TEST(agent_slots, more_slots_place_a_waiting_trial_at_once) {
  cluster c;
  c.run(c.core->agent_connected("k8s-default", "default", 2, "cuda", "", {},
                                c.now));
  c.run(c.core->submit_experiment(experiment(100, 2, 4), "alice", c.now));
  EXPECT_EQ(c.trial(1).status, state::trial_status::pending);
  auto d = c.run(c.core->set_agent_slots("k8s-default", 4, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_TRUE(std::holds_alternative<agent_slots_changed>(d.events.at(0)));
  ASSERT_TRUE(c.trial(1).allocation);
  EXPECT_EQ(c.trial(1).allocation->assignments.at(0).slots.size(), 4u);
  EXPECT_TRUE(c.replayed() == c.core->state());
}

TEST(agent_slots, fewer_slots_keep_the_ones_in_use_until_freed) {
  cluster c;
  c.run(c.core->agent_connected("k8s-default", "default", 4, "cuda", "", {},
                                c.now));
  c.run(c.core->submit_experiment(experiment(100, 2, 3), "alice", c.now));
  ASSERT_TRUE(c.trial(1).allocation);
  // Trial 1 holds slots 0-2: a shrink to 2 drops slot 3 only.
  c.run(c.core->set_agent_slots("k8s-default", 2, c.now));
  const auto* a = state::find_agent(c.core->state(), "k8s-default");
  EXPECT_EQ(a->slots.size(), 3u);
  EXPECT_EQ(state::slot_capacity(*a), 2);
  EXPECT_TRUE(c.trial(1).allocation);
  // The count it has writes nothing.
  auto same = c.run(c.core->set_agent_slots("k8s-default", 2, c.now));
  EXPECT_TRUE(same.events.empty());
  // A 1-slot trial waits: no free slot within the capacity.
  c.run(c.core->submit_experiment(experiment(100, 2, 1), "alice", c.now));
  EXPECT_EQ(c.trial(2).status, state::trial_status::pending);
  // Growing to 4 gives it slot 3.
  c.run(c.core->set_agent_slots("k8s-default", 4, c.now));
  ASSERT_TRUE(c.trial(2).allocation);
  EXPECT_EQ(c.trial(2).allocation->assignments.at(0).slots,
            (std::vector<int64_t>{3}));
  EXPECT_TRUE(c.replayed() == c.core->state());
}

TEST(agent_slots, an_unknown_agent_or_a_bad_count_is_refused) {
  cluster c;
  EXPECT_EQ(code_of(c.core->set_agent_slots("nope", 1, c.now).refusal),
            errc::not_found);
  c.run(c.core->agent_connected("k8s-default", "default", 1, "cuda", "", {},
                                c.now));
  EXPECT_EQ(code_of(c.core->set_agent_slots("k8s-default", -1, c.now).refusal),
            errc::invalid_argument);
}

} // namespace
} // namespace det
