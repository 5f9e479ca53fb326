// apply() of agent_slots_changed: a Kubernetes pool's virtual agent grows
// and shrinks with its nodes, and a shrink never takes a slot in use.

#include "state/queries.hpp"
#include "state_fixture.hpp"

namespace det::state::test {

namespace {

class apply_capacity : public state_fixture {};

TEST_F(apply_capacity, growing_adds_free_slots_that_take_work) {
  pool();
  agent("k8s-default", 2);
  ok(agent_slots_changed{"k8s-default", 5, 100});
  EXPECT_EQ(a("k8s-default").slots.size(), 5u);
  EXPECT_EQ(free_slots(a("k8s-default")), 5);
  EXPECT_EQ(slot_capacity(a("k8s-default")), 5);
  experiment(1, 4);
  trial(1, 1);
  place(1, "1.1", {{"k8s-default", {1, 2, 3, 4}}});
}

TEST_F(apply_capacity, shrinking_drops_free_slots_at_the_end_at_once) {
  pool();
  agent("k8s-default", 4);
  experiment(1);
  trial(1, 1);
  place(1, "1.1", {{"k8s-default", {0}}});
  ok(agent_slots_changed{"k8s-default", 2, 100});
  EXPECT_EQ(a("k8s-default").slots.size(), 2u);
  EXPECT_FALSE(a("k8s-default").slot_limit);
  EXPECT_EQ(a("k8s-default").slots[0], "1.1");
}

TEST_F(apply_capacity, a_slot_in_use_past_the_new_count_stays_until_freed) {
  pool();
  agent("k8s-default", 4);
  experiment(1);
  trial(1, 1);
  trial(2, 1);
  place(1, "1.1", {{"k8s-default", {2}}});
  ok(agent_slots_changed{"k8s-default", 1, 100});
  // Slot 3 (free, last) went; slot 2 is held, slot 1 is free but past the
  // limit: neither takes new work.
  EXPECT_EQ(a("k8s-default").slots.size(), 3u);
  EXPECT_EQ(a("k8s-default").slot_limit, 1);
  EXPECT_EQ(slot_capacity(a("k8s-default")), 1);
  EXPECT_EQ(free_slot_ids(a("k8s-default")), std::vector<int64_t>{0});
  EXPECT_EQ(t(1).status, trial_status::assigned);
  EXPECT_TRUE(has(refused(placement(2, "2.1", {{"k8s-default", {1}}})),
                  "past its capacity"));
  ok(trial_exited{1, "1.1", 0, "completed", 200});
  EXPECT_EQ(a("k8s-default").slots.size(), 1u);
  EXPECT_FALSE(a("k8s-default").slot_limit);
  place(2, "2.1", {{"k8s-default", {0}}});
}

TEST_F(apply_capacity, growing_again_lifts_the_limit) {
  pool();
  agent("k8s-default", 3);
  experiment(1);
  trial(1, 1);
  place(1, "1.1", {{"k8s-default", {2}}});
  ok(agent_slots_changed{"k8s-default", 0, 100});
  EXPECT_EQ(free_slots(a("k8s-default")), 0);
  ok(agent_slots_changed{"k8s-default", 4, 110});
  EXPECT_FALSE(a("k8s-default").slot_limit);
  EXPECT_EQ(a("k8s-default").slots.size(), 4u);
  EXPECT_EQ(free_slots(a("k8s-default")), 3);
}

TEST_F(apply_capacity, an_unknown_agent_or_a_negative_count_is_refused) {
  pool();
  EXPECT_TRUE(has(refused(agent_slots_changed{"nope", 1, 0}), "'nope'"));
  agent("k8s-default", 1);
  EXPECT_TRUE(
      has(refused(agent_slots_changed{"k8s-default", -1, 0}), "'slots'"));
}

TEST_F(apply_capacity, a_reconnect_repeats_the_changed_count) {
  pool();
  agent("k8s-default", 2);
  ok(agent_slots_changed{"k8s-default", 6, 100});
  ok(agent_disconnected{"k8s-default", "restart", 1000, 200});
  EXPECT_TRUE(has(
      refused(agent_connected{"k8s-default", "default", 2, "cuda", "", 300}),
      "another pool, slots or instance"));
  ok(agent_connected{"k8s-default", "default", 6, "cuda", "", 300});
}

} // namespace

} // namespace det::state::test
