#include "policy/pool_scheduler.hpp"

#include "scheduler_test_support.hpp"

#include <gtest/gtest.h>

#include <map>

namespace det::policy {
namespace {

using namespace det::policy::test;

/// Slots placed per experiment.
std::map<std::string, int> placed_slots(const pool_snapshot& s,
                                        const schedule_result& r) {
  std::map<std::string, std::string> exp_of;
  for (const auto& p : s.pending)
    exp_of[p.id] = p.experiment_id;
  std::map<std::string, int> out;
  for (const auto& p : r.placements)
    for (const auto& res : p.resources)
      out[exp_of.at(p.allocation_id)] += static_cast<int>(res.slots.size());
  return out;
}

std::vector<pending_allocation> many(const std::string& exp, int n, int slots,
                                     uint64_t first_order, double weight = 1) {
  std::vector<pending_allocation> v;
  for (int i = 0; i < n; ++i)
    v.push_back(trial(exp + "-t" + std::to_string(i), slots, 42,
                      first_order + static_cast<uint64_t>(i), exp, weight));
  return v;
}

template <class... Vs> std::vector<pending_allocation> concat(Vs... vs) {
  std::vector<pending_allocation> out;
  (out.insert(out.end(), vs.begin(), vs.end()), ...);
  return out;
}

struct share_case {
  const char* name;
  double weight_a, weight_b;
  int demand_a, demand_b; // 1-slot trials
  int expect_a, expect_b;
};

class fair_share_split : public ::testing::TestWithParam<share_case> {};

TEST_P(fair_share_split, shares_slots_between_experiments_by_weight) {
  const auto& c = GetParam();
  auto s = static_pool({agent("a", 8), agent("b", 8)},
                       concat(many("A", c.demand_a, 1, 0, c.weight_a),
                              many("B", c.demand_b, 1, 1000, c.weight_b)));
  auto got = placed_slots(s, schedule_pool(s, fair_share()));
  EXPECT_EQ(got["A"], c.expect_a);
  EXPECT_EQ(got["B"], c.expect_b);
}

INSTANTIATE_TEST_SUITE_P(
    table, fair_share_split,
    ::testing::Values(
        share_case{"equal_weights_split_evenly", 1, 1, 20, 20, 8, 8},
        share_case{"weights_three_to_one", 3, 1, 20, 20, 12, 4},
        share_case{"a_small_demand_is_met_and_the_rest_goes_to_the_other", 1, 1,
                   3, 20, 3, 13},
        share_case{"idle_share_is_lent_when_nobody_else_wants_it", 1, 1, 20, 0,
                   16, 0}),
    [](const auto& tc) { return std::string{tc.param.name}; });

TEST(fair_share, an_over_served_experiment_gives_slots_back_to_a_starved_one) {
  std::vector<running_allocation> run;
  for (int i = 0; i < 8; ++i)
    run.push_back(running("A-r" + std::to_string(i), {{"a", {i}}}, 42,
                          static_cast<uint64_t>(i), "A"));
  auto s = static_pool({agent("a", 8, 8)}, many("B", 8, 1, 100), run);
  auto r = schedule_pool(s, fair_share());
  EXPECT_EQ(r.preemptions.size(), 4u);
  EXPECT_TRUE(preempted(r, "A-r7")) << "newest first";
  EXPECT_FALSE(preempted(r, "A-r0"));
  EXPECT_TRUE(r.placements.empty());
}

// A provisioned pool grows for B's trials: their share is of the slots it
// grows to (16 of at most 80), so nothing of A's is stopped for B to wait
// on new instances anyway. At its maximum (8 slots) the pool cannot grow,
// and A gives back B's share as in a static pool.
TEST(fair_share, a_pool_that_can_grow_shares_what_it_grows_to) {
  std::vector<running_allocation> run;
  for (int i = 0; i < 8; ++i)
    run.push_back(running("A-r" + std::to_string(i), {{"a", {i}}}, 42,
                          static_cast<uint64_t>(i), "A"));
  auto s = static_pool({agent("a", 8, 8)}, many("B", 8, 1, 100), run);
  s.capacity.slots_per_instance = 8;
  s.capacity.max_slots = 80;
  auto r = schedule_pool(s, fair_share());
  EXPECT_TRUE(r.preemptions.empty());
  EXPECT_TRUE(r.placements.empty());
  s.capacity.max_slots = 8;
  EXPECT_EQ(schedule_pool(s, fair_share()).preemptions.size(), 4u);
}

TEST(fair_share,
     does_not_preempt_a_gang_that_would_leave_it_further_from_fair) {
  // A holds one 8-slot gang, B wants 2 slots: its fair share is 6/2, but
  // stopping the gang leaves A 6 under its share, worse than 2 over.
  auto s = static_pool({agent("a", 8, 8)}, many("B", 2, 1, 100),
                       {running("A-gang", {{"a", range(0, 8)}}, 42, 0, "A")});
  auto r = schedule_pool(s, fair_share());
  EXPECT_TRUE(r.preemptions.empty());
}

TEST(fair_share, does_not_lend_slots_while_someone_waits_for_preemption) {
  std::vector<running_allocation> run;
  for (int i = 0; i < 6; ++i)
    run.push_back(running("A-r" + std::to_string(i), {{"a", {i}}}, 42,
                          static_cast<uint64_t>(i), "A"));
  // B needs a 4-slot trial (within its share of 4) but only 2 slots are
  // free; A's pending trial must not take them meanwhile.
  auto s = static_pool({agent("a", 8, 6)},
                       concat(many("A", 2, 1, 50), many("B", 1, 4, 100)), run);
  auto r = schedule_pool(s, fair_share());
  EXPECT_FALSE(r.preemptions.empty());
  EXPECT_TRUE(r.placements.empty());
}

TEST(fair_share, reports_trials_that_can_never_fit) {
  auto s = static_pool({agent("a", 4)}, {trial("huge", 16, 42, 0, "A")});
  auto r = schedule_pool(s, fair_share());
  EXPECT_TRUE(never_fit_reason(r, "huge").has_value());
}

} // namespace
} // namespace det::policy
