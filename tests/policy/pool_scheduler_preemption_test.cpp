#include "policy/pool_scheduler.hpp"

#include "scheduler_test_support.hpp"

#include <gtest/gtest.h>

namespace det::policy {
namespace {

using namespace det::policy::test;

// One 4-slot agent, full with two 2-slot trials.
pool_snapshot full_agent(int prio_a, uint64_t order_a, int prio_b,
                         uint64_t order_b) {
  return static_pool({agent("a", 4, 4)}, {},
                     {running("ra", {{"a", {0, 1}}}, prio_a, order_a),
                      running("rb", {{"a", {2, 3}}}, prio_b, order_b)});
}

TEST(priority_preemption, asks_the_least_urgent_running_trial_to_stop) {
  auto s = full_agent(50, 1, 60, 2);
  s.pending = {trial("urgent", 2, 10, 3)};
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_EQ(r.preemptions, (std::vector<std::string>{"rb"}));
  EXPECT_EQ(placed(r, "urgent"), nullptr) << "it starts once rb has stopped";
}

TEST(priority_preemption, among_equals_asks_the_newest_to_stop) {
  auto s = full_agent(50, 1, 50, 2);
  s.pending = {trial("urgent", 2, 10, 3)};
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_EQ(r.preemptions, (std::vector<std::string>{"rb"}));
}

TEST(priority_preemption, preempts_only_as_many_trials_as_needed) {
  auto s = full_agent(50, 1, 50, 2);
  s.pending = {trial("urgent", 4, 10, 3)};
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_EQ(r.preemptions.size(), 2u);
  s.pending = {trial("urgent", 1, 10, 3)};
  r = schedule_pool(s, priority_with_preemption());
  EXPECT_EQ(r.preemptions.size(), 1u);
}

TEST(priority_preemption,
     at_equal_priority_only_later_submissions_are_preempted) {
  auto s = full_agent(42, 1, 42, 2);
  s.pending = {trial("same_level_but_later", 2, 42, 5)};
  EXPECT_TRUE(schedule_pool(s, priority_with_preemption()).preemptions.empty());
  s.pending = {trial("same_level_earlier", 2, 42, 0)};
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_EQ(r.preemptions, (std::vector<std::string>{"rb"}));
}

TEST(priority_preemption, never_preempts_more_urgent_trials) {
  auto s = full_agent(5, 1, 5, 2);
  s.pending = {trial("t", 2, 10, 3)};
  EXPECT_TRUE(schedule_pool(s, priority_with_preemption()).preemptions.empty());
}

TEST(priority_preemption, never_preempts_non_preemptible_allocations) {
  auto s = full_agent(50, 1, 60, 2);
  s.running[1].preemptible = false;
  s.pending = {trial("urgent", 2, 10, 3)};
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_EQ(r.preemptions, (std::vector<std::string>{"ra"}));
}

TEST(priority_preemption, is_off_unless_configured) {
  auto s = full_agent(50, 1, 60, 2);
  s.pending = {trial("urgent", 2, 10, 3)};
  EXPECT_TRUE(schedule_pool(s, {}).preemptions.empty());
}

TEST(priority_preemption, counts_allocations_already_stopping_as_free) {
  auto s = full_agent(50, 1, 60, 2);
  s.running[0].preempting = true; // asked in an earlier pass
  s.pending = {trial("urgent", 2, 10, 3)};
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_TRUE(r.preemptions.empty());
}

TEST(priority_preemption, spares_victims_whose_slots_the_fit_does_not_use) {
  // rc (least urgent) sits on agent c, whose slots alone cannot hold a
  // 4-slot trial; the fit needs agent a, so only its trials stop.
  auto s = static_pool({agent("a", 4, 4), agent("c", 2, 2)}, {},
                       {running("ra", {{"a", {0, 1, 2, 3}}}, 50, 1),
                        running("rc", {{"c", {0, 1}}}, 90, 2)});
  s.pending = {trial("urgent", 4, 10, 3)};
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_EQ(r.preemptions, (std::vector<std::string>{"ra"}));
}

TEST(priority_preemption, keeps_the_room_it_makes_from_less_urgent_trials) {
  // a: 2 busy (victim) + 2 free. The urgent 4-slot trial preempts rv and
  // reserves agent a; the less urgent 2-slot trial must not take a's free
  // slots in the same pass.
  auto s = static_pool({agent("a", 4, 2)}, {},
                       {running("rv", {{"a", {0, 1}}}, 90, 1)});
  s.pending = {trial("urgent", 4, 10, 2), trial("later", 2, 50, 3)};
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_EQ(r.preemptions, (std::vector<std::string>{"rv"}));
  EXPECT_TRUE(r.placements.empty());
}

TEST(priority_preemption, frees_whole_agents_for_a_gang) {
  auto s = static_pool({agent("a", 4, 4), agent("b", 4, 4)}, {},
                       {running("ra", {{"a", range(0, 4)}}, 80, 1),
                        running("rb1", {{"b", {0, 1}}}, 70, 2),
                        running("rb2", {{"b", {2, 3}}}, 70, 3)});
  s.pending = {trial("gang", 8, 10, 4)};
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_EQ(r.preemptions.size(), 3u);
}

TEST(priority_preemption, does_not_preempt_when_even_that_would_not_make_room) {
  auto s = static_pool({agent("a", 4, 4), agent("b", 4, 4)}, {},
                       {running("ra", {{"a", range(0, 4)}}, 80, 1),
                        running("rb", {{"b", range(0, 4)}}, 5, 2)});
  s.pending = {trial("gang", 8, 10, 4)};
  auto r = schedule_pool(s, priority_with_preemption());
  EXPECT_TRUE(r.preemptions.empty())
      << "rb is more urgent; ra alone is not enough";
}

} // namespace
} // namespace det::policy
