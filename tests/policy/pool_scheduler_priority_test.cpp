#include "policy/pool_scheduler.hpp"

#include "scheduler_test_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace det::policy {
namespace {

using namespace det::policy::test;

TEST(priority_scheduler, places_a_pending_trial_on_an_agent_with_enough_slots) {
  auto r = schedule_pool(static_pool({agent("a", 4)}, {trial("t", 2)}), {});
  ASSERT_NE(placed(r, "t"), nullptr);
  EXPECT_EQ(placed(r, "t")->resources,
            (std::vector<agent_slots>{{"a", {0, 1}}}));
  EXPECT_TRUE(r.preemptions.empty());
  EXPECT_TRUE(r.unschedulable.empty());
}

TEST(priority_scheduler, packs_trials_onto_the_agent_they_fill_best) {
  auto r = schedule_pool(
      static_pool({agent("big", 8), agent("half", 8, 4)}, {trial("t", 4)}), {});
  EXPECT_EQ(agents_of(r, "t"), (std::vector<std::string>{"half"}));
}

TEST(priority_scheduler, worst_fit_spreads_trials_over_agents) {
  scheduler_config c;
  c.fitting = fitting_policy::worst;
  auto r =
      schedule_pool(static_pool({agent("a", 8), agent("b", 8)},
                                {trial("t1", 1, 42, 1), trial("t2", 1, 42, 2)}),
                    c);
  EXPECT_NE(agents_of(r, "t1"), agents_of(r, "t2"));
}

TEST(priority_scheduler, places_more_urgent_trials_first) {
  auto r =
      schedule_pool(static_pool({agent("a", 4)}, {trial("late", 4, 50, 1),
                                                  trial("urgent", 4, 10, 2)}),
                    {});
  EXPECT_NE(placed(r, "urgent"), nullptr);
  EXPECT_EQ(placed(r, "late"), nullptr);
}

TEST(priority_scheduler, breaks_priority_ties_by_submission_order) {
  auto r =
      schedule_pool(static_pool({agent("a", 4)}, {trial("second", 4, 42, 2),
                                                  trial("first", 4, 42, 1)}),
                    {});
  EXPECT_NE(placed(r, "first"), nullptr);
  EXPECT_EQ(placed(r, "second"), nullptr);
}

TEST(priority_scheduler, backfills_smaller_trials_of_the_same_priority) {
  auto s = static_pool({agent("a", 4), agent("b", 4)},
                       {trial("big", 8, 42, 1), trial("small", 1, 42, 2)});
  s.agents[1] = agent("b", 4, 1); // the 8-slot gang cannot form
  auto r = schedule_pool(s, {});
  EXPECT_EQ(placed(r, "big"), nullptr);
  EXPECT_NE(placed(r, "small"), nullptr);
}

TEST(priority_scheduler,
     less_urgent_trials_wait_while_a_more_urgent_one_waits) {
  auto s = static_pool({agent("a", 4), agent("b", 4, 1)},
                       {trial("urgent", 8, 10, 1), trial("later", 1, 50, 2)});
  auto r = schedule_pool(s, {});
  EXPECT_EQ(placed(r, "urgent"), nullptr);
  EXPECT_EQ(placed(r, "later"), nullptr);
  EXPECT_TRUE(r.unschedulable.empty());
}

TEST(priority_scheduler,
     with_preemption_on_less_urgent_trials_backfill_free_slots) {
  auto s = static_pool({agent("a", 4), agent("b", 4, 1)},
                       {trial("urgent", 8, 10, 1), trial("later", 1, 50, 2)});
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_EQ(placed(r, "urgent"), nullptr);
  EXPECT_NE(placed(r, "later"), nullptr);
}

TEST(priority_scheduler, places_a_multi_agent_gang_on_whole_idle_agents) {
  auto r = schedule_pool(
      static_pool({agent("a", 4), agent("b", 4), agent("c", 4, 2)},
                  {trial("gang", 8)}),
      {});
  EXPECT_EQ(agents_of(r, "gang"), (std::vector<std::string>{"a", "b"}));
  for (const auto& res : placed(r, "gang")->resources)
    EXPECT_EQ(res.slots, range(0, 4));
}

TEST(priority_scheduler, prefers_one_agent_over_a_gang_when_one_agent_fits) {
  auto r =
      schedule_pool(static_pool({agent("a", 4), agent("b", 4), agent("big", 8)},
                                {trial("t", 8)}),
                    {});
  EXPECT_EQ(agents_of(r, "t"), (std::vector<std::string>{"big"}));
}

TEST(priority_scheduler, a_gang_is_all_or_nothing) {
  auto r = schedule_pool(
      static_pool({agent("a", 4), agent("b", 4, 1)}, {trial("gang", 8)}), {});
  EXPECT_TRUE(r.placements.empty());
  EXPECT_TRUE(r.unschedulable.empty()); // it fits once b is idle
}

TEST(priority_scheduler, gives_no_work_to_disabled_or_draining_agents) {
  auto off = agent("off", 8);
  off.enabled = false;
  auto drain = agent("drain", 8);
  drain.draining = true;
  auto r = schedule_pool(static_pool({off, drain}, {trial("t", 1)}), {});
  EXPECT_TRUE(r.placements.empty());
  EXPECT_TRUE(r.unschedulable.empty());
}

struct never_fit_case {
  const char* name;
  pool_capacity capacity;
  std::vector<int> agent_sizes;
  int slots;
  const char* reason_contains; // nullptr: it can fit some day
};

class never_fits_check : public ::testing::TestWithParam<never_fit_case> {};

TEST_P(never_fits_check, reports_only_trials_no_agent_set_could_ever_hold) {
  const auto& c = GetParam();
  pool_snapshot s;
  s.capacity = c.capacity;
  for (size_t i = 0; i < c.agent_sizes.size(); ++i)
    s.agents.push_back(agent("a" + std::to_string(i), c.agent_sizes[i],
                             c.agent_sizes[i])); // all busy: nothing places
  s.pending = {trial("t", c.slots)};
  auto r = schedule_pool(s, {});
  EXPECT_TRUE(r.placements.empty());
  auto reason = never_fit_reason(r, "t");
  if (c.reason_contains == nullptr) {
    EXPECT_FALSE(reason.has_value()) << *reason;
  } else {
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find(c.reason_contains), std::string::npos) << *reason;
  }
}

INSTANTIATE_TEST_SUITE_P(
    table, never_fits_check,
    ::testing::Values(
        never_fit_case{"more_than_the_provisioned_maximum",
                       {16, 8},
                       {},
                       24,
                       "never offer more than 16"},
        never_fit_case{
            "the_provisioned_maximum_exactly", {16, 8}, {}, 16, nullptr},
        never_fit_case{"one_instance_worth", {16, 8}, {}, 8, nullptr},
        never_fit_case{"not_a_multiple_of_the_instance_size",
                       {32, 8},
                       {},
                       12,
                       "agent sizes: 8"},
        never_fit_case{"more_than_a_static_pool_holds",
                       {12, 0},
                       {8, 4},
                       13,
                       "never offer more than 12"},
        never_fit_case{"a_gang_that_mixed_sizes_cannot_form",
                       {12, 0},
                       {8, 4},
                       12,
                       "agent sizes: 8, 4"},
        never_fit_case{
            "a_gang_of_equal_static_agents", {12, 0}, {4, 4, 4}, 12, nullptr},
        never_fit_case{
            "a_static_agent_in_a_provisioned_pool", {24, 8}, {16}, 16, nullptr},
        never_fit_case{"zero_slots", {16, 8}, {}, 0, "zero-slot"}),
    [](const auto& tc) { return std::string{tc.param.name}; });

TEST(priority_scheduler, a_trial_that_can_never_fit_does_not_block_the_queue) {
  pool_snapshot s = static_pool(
      {agent("a", 4)}, {trial("huge", 64, 1, 1), trial("t", 1, 50, 2)});
  auto r = schedule_pool(s, {});
  EXPECT_TRUE(never_fit_reason(r, "huge").has_value());
  EXPECT_NE(placed(r, "t"), nullptr);
}

/// Invariants of any pass: every placement has exactly the slots asked
/// for, only on schedulable agents and only on slots that were free, and no
/// slot is given twice.
void check_sound(const pool_snapshot& s, const schedule_result& r) {
  std::map<std::string, const agent_view*> agents;
  for (const auto& a : s.agents)
    agents[a.id] = &a;
  std::map<std::string, int> wanted;
  for (const auto& p : s.pending)
    wanted[p.id] = p.slots;
  std::set<std::pair<std::string, int>> given;
  for (const auto& p : r.placements) {
    int n = 0;
    std::set<std::string> distinct_agents;
    for (const auto& res : p.resources) {
      const auto* a = agents.at(res.agent_id);
      EXPECT_TRUE(a->enabled && !a->draining);
      EXPECT_TRUE(distinct_agents.insert(res.agent_id).second);
      for (int slot : res.slots) {
        EXPECT_NE(std::find(a->free_slots.begin(), a->free_slots.end(), slot),
                  a->free_slots.end());
        EXPECT_TRUE(given.emplace(res.agent_id, slot).second)
            << "slot given twice";
        ++n;
      }
    }
    EXPECT_EQ(n, wanted.at(p.allocation_id)) << p.allocation_id;
    if (p.resources.size() > 1) { // gangs use whole agents of one size
      for (const auto& res : p.resources) {
        EXPECT_EQ(agents.at(res.agent_id)->total_slots,
                  static_cast<int>(res.slots.size()));
      }
    }
  }
}

pool_snapshot random_pool(uint32_t seed, int n_agents, int n_pending) {
  std::mt19937 rng{seed};
  const int sizes[] = {1, 4, 8};
  const int needs[] = {1, 2, 4, 8, 16};
  pool_snapshot s;
  for (int i = 0; i < n_agents; ++i) {
    int total = sizes[rng() % 3];
    auto a = agent("a" + std::to_string(i), total);
    a.free_slots.clear();
    for (int slot = 0; slot < total; ++slot)
      if (rng() % 3 != 0)
        a.free_slots.push_back(slot);
    a.draining = rng() % 20 == 0;
    s.agents.push_back(a);
    s.capacity.max_slots += total;
  }
  for (int i = 0; i < n_pending; ++i)
    s.pending.push_back(trial("t" + std::to_string(i), needs[rng() % 5],
                              1 + static_cast<int>(rng() % 99), rng() % 1000,
                              "e" + std::to_string(rng() % 7)));
  return s;
}

TEST(pool_scheduler, never_double_books_a_slot_on_random_pools) {
  const scheduler_config configs[] = {scheduler_config{},
                                      priority_with_preemption(), fair_share()};
  size_t placements[3] = {0, 0, 0};
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    auto s = random_pool(seed, 50, 200);
    for (size_t c = 0; c < 3; ++c) {
      auto r = schedule_pool(s, configs[c]);
      check_sound(s, r);
      placements[c] += r.placements.size();
    }
  }
  for (auto n : placements)
    EXPECT_GT(n, 0u);
}

TEST(pool_scheduler, gives_the_same_result_for_the_same_snapshot) {
  auto s = random_pool(7, 100, 500);
  for (const auto& c : {scheduler_config{}, fair_share()}) {
    auto a = schedule_pool(s, c);
    auto b = schedule_pool(s, c);
    ASSERT_EQ(a.placements.size(), b.placements.size());
    for (size_t i = 0; i < a.placements.size(); ++i) {
      EXPECT_EQ(a.placements[i].allocation_id, b.placements[i].allocation_id);
      EXPECT_EQ(a.placements[i].resources, b.placements[i].resources);
    }
  }
}

TEST(pool_scheduler, handles_an_empty_pool) {
  pool_snapshot s;
  s.pending = {trial("t", 1)};
  auto r = schedule_pool(s, {});
  EXPECT_TRUE(r.placements.empty());
  EXPECT_TRUE(never_fit_reason(r, "t").has_value());
  EXPECT_TRUE(schedule_pool(pool_snapshot{}, fair_share()).placements.empty());
}

// An exclude_node log policy: the trial's later runs keep off the agents
// where its logs matched, though they fit it best.
TEST(priority_scheduler, a_trial_is_kept_off_the_agents_it_avoids) {
  auto pool = [](pending_allocation p) {
    return static_pool({agent("big", 8), agent("half", 8, 4)}, {std::move(p)});
  };
  auto avoiding = trial("t", 4, 42, 1);
  EXPECT_EQ(agents_of(schedule_pool(pool(avoiding), {}), "t"),
            (std::vector<std::string>{"half"}));
  avoiding.avoid_agents = {"half", "gone"};
  EXPECT_EQ(agents_of(schedule_pool(pool(avoiding), {}), "t"),
            (std::vector<std::string>{"big"}));
}

TEST(priority_scheduler, a_trial_that_avoids_every_agent_waits) {
  auto avoiding = trial("t", 1);
  avoiding.avoid_agents = {"a"};
  auto r = schedule_pool(static_pool({agent("a", 8)}, {avoiding}), {});
  EXPECT_EQ(placed(r, "t"), nullptr);
  EXPECT_TRUE(r.unschedulable.empty());
}

} // namespace
} // namespace det::policy
