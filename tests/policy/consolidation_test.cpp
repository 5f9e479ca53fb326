// Small pools whose right answer is known by hand: 8-slot agents, a move
// costs 120 s, consolidate after 10 min.
#include "policy/consolidation.hpp"

#include <gtest/gtest.h>

namespace det::policy::consolidation_tests {
namespace {

using namespace std::chrono_literals;

const timestamp t0 = timestamp{} + 1000h;

consolidation_config hand_config() {
  consolidation_config c;
  c.consolidate_after = 10min;
  c.move_cost = 120s;
  c.slots_per_instance = 8;
  return c;
}

// An agent with `used` slots in use (0..used-1), under-used for
// `underused_for` if set.
consolidation_agent agent(const std::string& id, int used,
                          std::optional<duration> underused_for = {}) {
  consolidation_agent a;
  a.agent.id = id;
  a.agent.total_slots = 8;
  for (int k = used; k < 8; ++k)
    a.agent.free_slots.push_back(k);
  if (underused_for)
    a.underused_since = t0 - *underused_for;
  return a;
}

// A run holding `slots` of `on` (first slot `first`), running for `age`.
consolidation_run run(const std::string& id, const std::string& on, int first,
                      int slots, duration age) {
  consolidation_run r;
  r.run.id = id;
  r.run.experiment_id = "e-" + id;
  agent_slots part{on, {}};
  for (int k = 0; k < slots; ++k)
    part.slots.push_back(first + k);
  r.run.resources.push_back(part);
  r.started = t0 - age;
  return r;
}

consolidation_input pool(std::vector<consolidation_agent> agents,
                         std::vector<consolidation_run> running) {
  consolidation_input in;
  in.agents = std::move(agents);
  in.running = std::move(running);
  in.now = t0;
  return in;
}

// a: one 1-slot job for 2 h, under-used for an hour; b: 5 of 8 in use.
consolidation_input one_job_beside_room() {
  return pool({agent("a", 1, 1h), agent("b", 5)},
              {run("r1", "a", 0, 1, 2h), run("r2", "b", 0, 5, 3h)});
}

} // namespace

TEST(consolidation,
     a_lone_job_moves_to_an_agent_with_room_and_empties_its_own) {
  auto plan = plan_consolidation(one_job_beside_room(), hand_config());
  ASSERT_EQ(plan.moves.size(), 1u);
  EXPECT_EQ(plan.moves[0].allocation_id, "r1");
  EXPECT_EQ(plan.moves[0].from_agent, "a");
  ASSERT_EQ(plan.moves[0].to.size(), 1u);
  EXPECT_EQ(plan.moves[0].to[0], (agent_slots{"b", {5}}));
  EXPECT_EQ(plan.emptied_agents, std::vector<std::string>{"a"});
}

TEST(consolidation, a_pending_allocation_keeps_the_room) {
  auto in = one_job_beside_room();
  pending_allocation p;
  p.id = "p1";
  p.slots = 8;
  in.pending.push_back(p);
  auto plan = plan_consolidation(in, hand_config());
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_TRUE(plan.emptied_agents.empty());
}

TEST(consolidation, a_gang_that_fits_nowhere_else_stays) {
  // a: a 2-slot gang; b has a single free slot.
  auto in = pool({agent("a", 2, 1h), agent("b", 7)},
                 {run("g", "a", 0, 2, 2h), run("r2", "b", 0, 7, 3h)});
  EXPECT_TRUE(plan_consolidation(in, hand_config()).moves.empty());
  // With two free slots on b the gang moves whole.
  in.agents[1] = agent("b", 6);
  auto plan = plan_consolidation(in, hand_config());
  ASSERT_EQ(plan.moves.size(), 1u);
  EXPECT_EQ(plan.moves[0].to[0], (agent_slots{"b", {6, 7}}));
}

TEST(consolidation, a_gang_spanning_two_agents_is_never_moved) {
  auto in = pool({agent("a", 1, 1h), agent("c", 1, 1h), agent("b", 4)},
                 {run("r2", "b", 0, 4, 3h)});
  consolidation_run g = run("g", "a", 0, 1, 2h);
  g.run.resources.push_back({"c", {0}});
  in.running.push_back(g);
  EXPECT_TRUE(plan_consolidation(in, hand_config()).moves.empty());
}

TEST(consolidation, under_used_for_less_than_the_period_stays) {
  auto in = one_job_beside_room();
  in.agents[0].underused_since = t0 - 9min;
  EXPECT_TRUE(plan_consolidation(in, hand_config()).moves.empty());
  in.agents[0].underused_since = t0 - 10min;
  EXPECT_EQ(plan_consolidation(in, hand_config()).moves.size(), 1u);
}

// Cost: 120 s on the source plus 120 s of one slot of eight (15 s).
TEST(consolidation, a_move_that_costs_more_than_it_saves_is_not_made) {
  auto in = one_job_beside_room();
  in.running[0].started = t0 - 135s;
  EXPECT_TRUE(plan_consolidation(in, hand_config()).moves.empty());
  in.running[0].started = t0 - 136s;
  EXPECT_EQ(plan_consolidation(in, hand_config()).moves.size(), 1u);
}

TEST(consolidation, an_idle_agent_is_no_target) {
  // b is idle (the idle rule may reap it): moving there saves nothing.
  auto in =
      pool({agent("a", 1, 1h), agent("b", 0)}, {run("r1", "a", 0, 1, 2h)});
  EXPECT_TRUE(plan_consolidation(in, hand_config()).moves.empty());
}

TEST(consolidation, two_nearly_empty_agents_become_one) {
  auto in = pool({agent("a", 1, 1h), agent("b", 2, 2h)},
                 {run("r1", "a", 0, 1, 2h), run("r2", "b", 0, 2, 3h)});
  auto plan = plan_consolidation(in, hand_config());
  ASSERT_EQ(plan.moves.size(), 1u); // b received r1: it stays
  EXPECT_EQ(plan.moves[0].to[0], (agent_slots{"b", {2}}));
  EXPECT_EQ(plan.emptied_agents, std::vector<std::string>{"a"});
}

// a's job goes to b (4 free, as c; b first by id); b, under-used as well,
// would otherwise move its own job to c and leave a's behind.
TEST(consolidation, an_agent_that_receives_a_move_stays) {
  auto in = pool({agent("a", 1, 1h), agent("b", 4, 2h), agent("c", 4)},
                 {run("r1", "a", 0, 1, 2h), run("r2", "b", 0, 4, 3h),
                  run("r3", "c", 0, 4, 3h)});
  auto plan = plan_consolidation(in, hand_config());
  ASSERT_EQ(plan.moves.size(), 1u);
  EXPECT_EQ(plan.moves[0].to[0], (agent_slots{"b", {4}}));
  EXPECT_EQ(plan.emptied_agents, std::vector<std::string>{"a"});
}

TEST(consolidation, moves_per_pass_and_min_instances_bound_the_plan) {
  auto in = pool(
      {agent("a", 1, 1h), agent("c", 1, 1h), agent("d", 1, 1h), agent("b", 4)},
      {run("r1", "a", 0, 1, 2h), run("r3", "c", 0, 1, 2h),
       run("r4", "d", 0, 1, 2h), run("r2", "b", 0, 4, 3h)});
  auto c = hand_config();
  c.max_moves_per_pass = 2;
  auto plan = plan_consolidation(in, c);
  EXPECT_EQ(plan.emptied_agents, (std::vector<std::string>{"a", "c"}));
  c.max_moves_per_pass = 8;
  c.min_instances = 3;
  plan = plan_consolidation(in, c);
  EXPECT_EQ(plan.emptied_agents, std::vector<std::string>{"a"});
}

TEST(consolidation, an_agent_more_than_half_used_is_not_under_used) {
  auto c = hand_config();
  EXPECT_TRUE(is_underused(8, 4, c));
  EXPECT_FALSE(is_underused(8, 3, c));
  EXPECT_FALSE(is_underused(8, 8, c)); // idle: the idle rule's business
}

TEST(consolidation, preempting_or_unpreemptible_runs_keep_their_agent) {
  auto in = one_job_beside_room();
  in.running[0].run.preemptible = false;
  EXPECT_TRUE(plan_consolidation(in, hand_config()).moves.empty());
  in = one_job_beside_room();
  in.running[0].run.preempting = true;
  EXPECT_TRUE(plan_consolidation(in, hand_config()).moves.empty());
}

} // namespace det::policy::consolidation_tests
