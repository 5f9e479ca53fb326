#include "policy/slot_index.hpp"

#include "scheduler_test_support.hpp"

#include <gtest/gtest.h>

namespace det::policy {
namespace {

using test::agent;

struct single_fit_case {
  const char* name;
  fitting_policy fitting;
  std::vector<int> free_per_agent; // agent i is "a<i>" with 8 slots
  int request;
  std::string expected; // "" = no fit
};

class single_agent_fit : public ::testing::TestWithParam<single_fit_case> {};

TEST_P(single_agent_fit, picks_the_agent_the_policy_prefers) {
  const auto& c = GetParam();
  std::vector<agent_view> agents;
  for (size_t i = 0; i < c.free_per_agent.size(); ++i)
    agents.push_back(
        agent("a" + std::to_string(i), 8, 8 - c.free_per_agent[i]));
  slot_index index{agents, c.fitting};
  std::vector<slot_index::part> fit;
  bool found = index.find(c.request, fit);
  if (c.expected.empty()) {
    EXPECT_FALSE(found);
    return;
  }
  ASSERT_TRUE(found);
  ASSERT_EQ(fit.size(), 1u);
  EXPECT_EQ(index.id_of(fit[0].agent), c.expected);
  EXPECT_EQ(fit[0].count, c.request);
}

INSTANTIATE_TEST_SUITE_P(
    table, single_agent_fit,
    ::testing::Values(
        single_fit_case{"best_fit_takes_the_tightest_agent",
                        fitting_policy::best,
                        {8, 2, 4},
                        2,
                        "a1"},
        single_fit_case{"best_fit_skips_agents_too_small",
                        fitting_policy::best,
                        {1, 2, 4, 8},
                        3,
                        "a2"},
        single_fit_case{"best_fit_uses_an_exact_fit",
                        fitting_policy::best,
                        {3, 5, 8},
                        5,
                        "a1"},
        single_fit_case{"best_fit_ties_go_to_the_agent_listed_first",
                        fitting_policy::best,
                        {4, 4, 4},
                        4,
                        "a0"},
        single_fit_case{"worst_fit_takes_the_emptiest_agent",
                        fitting_policy::worst,
                        {2, 8, 4},
                        2,
                        "a1"},
        single_fit_case{"nothing_fits_when_no_agent_has_room",
                        fitting_policy::best,
                        {1, 1, 1},
                        2,
                        ""},
        single_fit_case{
            "a_full_pool_fits_nothing", fitting_policy::best, {0, 0}, 1, ""}),
    [](const auto& tc) { return std::string{tc.param.name}; });

TEST(slot_index, a_gang_takes_whole_idle_agents_of_one_size) {
  std::vector<agent_view> agents{agent("busy", 8, 1), agent("i1", 8),
                                 agent("i2", 8), agent("small", 4)};
  slot_index index{agents, fitting_policy::best};
  std::vector<slot_index::part> fit;
  ASSERT_TRUE(index.find(16, fit));
  auto taken = index.take(fit);
  ASSERT_EQ(taken.size(), 2u);
  for (const auto& t : taken) {
    EXPECT_NE(t.agent_id, "busy");
    EXPECT_EQ(t.slots, test::range(0, 8));
  }
  EXPECT_EQ(index.free_total(), 7 + 4);
}

TEST(slot_index, a_gang_is_not_assembled_from_partly_used_agents) {
  std::vector<agent_view> agents{agent("a", 8, 1), agent("b", 8, 1),
                                 agent("c", 8, 1)};
  slot_index index{agents, fitting_policy::best};
  std::vector<slot_index::part> fit;
  EXPECT_FALSE(index.find(14, fit));
}

TEST(slot_index, a_gang_must_be_a_multiple_of_the_agent_size) {
  std::vector<agent_view> agents{agent("a", 8), agent("b", 8)};
  slot_index index{agents, fitting_policy::best};
  std::vector<slot_index::part> fit;
  EXPECT_FALSE(index.find(12, fit));
  EXPECT_TRUE(index.find(16, fit));
}

TEST(slot_index, take_gives_the_lowest_free_slot_indices) {
  agent_view a{"a", 8, {6, 1, 3, 7}, true, false};
  std::vector<agent_view> agents{a};
  slot_index index{agents, fitting_policy::best};
  std::vector<slot_index::part> fit;
  ASSERT_TRUE(index.find(2, fit));
  auto taken = index.take(fit);
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].slots, (std::vector<int>{1, 3}));
  EXPECT_EQ(index.free_total(), 2);
}

TEST(slot_index, released_slots_can_be_taken_again_and_make_an_agent_idle) {
  std::vector<agent_view> agents{agent("a", 4, 4), agent("b", 4, 4)};
  slot_index index{agents, fitting_policy::best};
  std::vector<slot_index::part> fit;
  EXPECT_FALSE(index.find(8, fit));
  index.release(0, test::range(0, 4));
  index.release(1, test::range(0, 4));
  EXPECT_EQ(index.free_total(), 8);
  EXPECT_TRUE(index.find(8, fit));
  index.take_exact(1, {2});
  EXPECT_FALSE(index.find(8, fit));
  EXPECT_EQ(index.free_total(), 7);
}

TEST(slot_index, disabled_and_draining_agents_are_never_offered) {
  auto off = agent("off", 8);
  off.enabled = false;
  auto drain = agent("drain", 8);
  drain.draining = true;
  std::vector<agent_view> agents{off, drain};
  slot_index index{agents, fitting_policy::best};
  std::vector<slot_index::part> fit;
  EXPECT_EQ(index.free_total(), 0);
  EXPECT_FALSE(index.find(1, fit));
  index.release(0, {0});
  EXPECT_FALSE(index.find(1, fit));
}

TEST(slot_index, malformed_free_lists_are_cleaned_up) {
  agent_view a{"a", 2, {1, 1, 5, -1, 0}, true, false};
  std::vector<agent_view> agents{a};
  slot_index index{agents, fitting_policy::best};
  EXPECT_EQ(index.free_total(), 2);
}

} // namespace
} // namespace det::policy
