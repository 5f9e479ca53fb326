#define CAF_SUITE pool_actor
#define FAIL(x) CAF_FAIL(x)

// The pool actor of a priority pool with preemption: its passes are the
// incremental scheduler's, checked against the full pass whenever the
// request carries the whole view, through a preemption's whole course
// (asked, stopping, gone, the slots taken).

#include "actors/pool_actor.hpp"
#include "policy/pool_scheduler.hpp"

#include <caf/test/dsl.hpp>

#include <string>
#include <vector>

using namespace det;

namespace {

policy::agent_view busy_agent(const std::string& id) {
  policy::agent_view a;
  a.id = id;
  a.total_slots = 2;
  return a;
}

policy::running_allocation holding(const std::string& id,
                                   const std::string& agent, int priority,
                                   uint64_t order) {
  policy::running_allocation r;
  r.id = id;
  r.experiment_id = "exp-" + id;
  r.priority = priority;
  r.order = order;
  r.resources = {{agent, {0, 1}}};
  return r;
}

/// Two agents of two slots, each held by a less urgent allocation; an
/// urgent one waits for two slots.
policy::pool_snapshot busy_pool() {
  policy::pool_snapshot s;
  s.agents = {busy_agent("a1"), busy_agent("a2")};
  s.running = {holding("r-60", "a1", 60, 1), holding("r-70", "a2", 70, 2)};
  policy::pending_allocation p;
  p.id = "urgent";
  p.experiment_id = "exp-urgent";
  p.slots = 2;
  p.priority = 10;
  p.order = 3;
  s.pending = {p};
  s.capacity.max_slots = 4;
  return s;
}

} // namespace

CAF_TEST_FIXTURE_SCOPE(pool_actor_tests, test_coordinator_fixture<>)

CAF_TEST(a_preemption_pool_passes_incrementally_and_checked) {
  policy::scheduler_config config;
  config.preemption = true;
  auto pool = spawn_pool_actor(sys, "p", config);
  auto view = busy_pool();
  auto pass = [&](policy::pool_delta delta, bool check) {
    pool_pass_request req;
    req.pool = "p";
    req.generation = 1;
    delta.capacity = view.capacity;
    req.delta = std::move(delta);
    if (check)
      req.check = view;
    return request<pool_pass_result>(pool, pass_atom::value, std::move(req));
  };

  // The first pass: the least urgent allocation is asked to stop.
  policy::pool_delta first;
  first.resync = true;
  first.full = view;
  auto asked = pass(first, true);
  CAF_CHECK(asked.checked);
  CAF_CHECK_EQUAL(asked.mismatches, 0);
  CAF_CHECK_EQUAL(asked.result.preemptions, std::vector<std::string>{"r-70"});
  CAF_CHECK(asked.result.placements.empty());

  // It is stopping: nothing more is asked, nothing placed.
  view.running[1].preempting = true;
  policy::pool_delta stopping;
  stopping.running = {view.running[1]};
  auto waiting = pass(stopping, true);
  CAF_CHECK_EQUAL(waiting.mismatches, 0);
  CAF_CHECK(waiting.result.preemptions.empty());
  CAF_CHECK(waiting.result.placements.empty());

  // It is gone and its slots are free: the urgent allocation takes them.
  view.running.pop_back();
  view.agents[1].free_slots = {0, 1};
  policy::pool_delta gone;
  gone.running_gone = {"r-70"};
  gone.agents = {view.agents[1]};
  auto placed = pass(gone, true);
  CAF_CHECK_EQUAL(placed.mismatches, 0);
  CAF_REQUIRE_EQUAL(placed.result.placements.size(), 1u);
  CAF_CHECK_EQUAL(placed.result.placements[0].allocation_id, "urgent");
  CAF_CHECK_EQUAL(placed.result.placements[0].resources[0].agent_id, "a2");
  CAF_CHECK(policy::same_decisions(placed.result,
                                   policy::schedule_pool(view, config)));
}

CAF_TEST_FIXTURE_SCOPE_END()
