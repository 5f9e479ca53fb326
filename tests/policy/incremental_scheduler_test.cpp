// incremental_scheduler against the full pass: on random histories of a
// pool (agents joining, leaving, draining; allocations arriving, starting,
// being preempted, finishing, leaving), every incremental pass must decide
// exactly what schedule_pool decides on the same view, and the view must
// be the pool as the history left it.

#include "policy/incremental_scheduler.hpp"
#include "policy/pool_scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace det::policy {
namespace {

std::string describe(const schedule_result& r) {
  std::string s;
  for (const auto& p : r.placements) {
    s += "place " + p.allocation_id + ":";
    for (const auto& a : p.resources) {
      s += " " + a.agent_id + "[";
      for (int i : a.slots)
        s += std::to_string(i) + ",";
      s += "]";
    }
    s += "\n";
  }
  for (const auto& id : r.preemptions)
    s += "preempt " + id + "\n";
  for (const auto& n : r.unschedulable)
    s += "never " + n.allocation_id + ": " + n.reason + "\n";
  return s;
}

/// The pool as a history leaves it, and the same changes told to an
/// incremental scheduler.
class history {
public:
  history(scheduler_config config, uint32_t seed)
      : config_(config), rng_(seed), inc_(config) {
    inc_.set_capacity(pool_capacity{INT_MAX, 0});
  }

  void step() {
    int actions = 1 + static_cast<int>(rng_() % 4);
    for (int i = 0; i < actions; ++i)
      act();
  }

  /// One pass of each kind; both must agree. Then some of the result
  /// happens, as the master would apply it.
  void pass_and_apply() {
    auto got = inc_.pass();
    auto want = schedule_pool(inc_.snapshot(), config_);
    ASSERT_EQ(describe(got), describe(want));
    ++passes_;
    placed_ += got.placements.size();
    preempted_ += got.preemptions.size();
    for (const auto& p : got.placements)
      if (rng_() % 5 != 0)
        start(p);
    for (const auto& id : got.preemptions)
      if (rng_() % 3 != 0)
        mark_preempting(id);
  }

  void check_view() const {
    auto s = inc_.snapshot();
    ASSERT_EQ(s.agents.size(), agents_.size());
    for (const auto& a : s.agents) {
      auto it = agents_.find(a.id);
      ASSERT_NE(it, agents_.end());
      EXPECT_EQ(a.free_slots, it->second.free_slots) << a.id;
      EXPECT_EQ(a.draining, it->second.draining);
    }
    ASSERT_EQ(s.pending.size(), pending_.size());
    ASSERT_EQ(s.running.size(), running_.size());
    for (size_t i = 1; i < s.pending.size(); ++i)
      EXPECT_LT(s.pending[i - 1].order, s.pending[i].order);
  }

  size_t passes_ = 0;
  size_t placed_ = 0;
  size_t preempted_ = 0;
  incremental_scheduler& scheduler() { return inc_; }

private:
  void act() {
    switch (rng_() % 13) {
    case 12:
      burst();
      break;
    case 0:
    case 1:
      add_agent();
      break;
    case 2:
      remove_agent();
      break;
    case 3:
      toggle_agent();
      break;
    case 4:
    case 5:
    case 6:
      add_pending();
      break;
    case 7:
      remove_pending();
      break;
    case 8:
    case 9:
      finish_running();
      break;
    case 10:
      change_capacity();
      break;
    default:
      reprioritise();
      break;
    }
  }

  template <class M> auto pick(M& m) {
    auto it = m.begin();
    std::advance(it, static_cast<long>(rng_() % m.size()));
    return it;
  }

  void add_agent() {
    const int sizes[] = {1, 2, 4, 4, 8, 8};
    agent_view a;
    a.id = "a" + std::to_string(next_agent_++);
    a.total_slots = sizes[rng_() % 6];
    for (int s = 0; s < a.total_slots; ++s)
      a.free_slots.push_back(s);
    agents_[a.id] = a;
    inc_.upsert_agent(a);
  }

  void remove_agent() {
    if (agents_.empty())
      return;
    auto it = pick(agents_);
    // Its allocations end with it.
    std::vector<std::string> gone;
    for (const auto& [id, r] : running_)
      for (const auto& res : r.resources)
        if (res.agent_id == it->first)
          gone.push_back(id);
    auto id = it->first;
    agents_.erase(it);
    inc_.remove_agent(id);
    for (const auto& r : gone)
      end_running(r);
  }

  void toggle_agent() {
    if (agents_.empty())
      return;
    auto& a = pick(agents_)->second;
    if (rng_() % 2 == 0)
      a.draining = !a.draining;
    else
      a.enabled = !a.enabled;
    inc_.upsert_agent(a);
  }

  void add_pending() {
    const int sizes[] = {1, 1, 1, 2, 3, 4, 8, 16, 32};
    const int priorities[] = {1, 10, 42, 42, 42, 50, 99};
    pending_allocation p;
    p.id = "p" + std::to_string(next_order_);
    p.order = next_order_++;
    p.slots = sizes[rng_() % 9];
    p.priority = priorities[rng_() % 7];
    p.experiment_id = "e" + std::to_string(rng_() % 5);
    p.weight = 1.0 + static_cast<double>((p.experiment_id.back() - '0') % 3);
    if (rng_() % 8 == 0 && !agents_.empty())
      p.avoid_agents.push_back(pick(agents_)->first);
    if (rng_() % 20 == 0)
      p.avoid_agents.push_back("nobody");
    pending_[p.id] = p;
    inc_.upsert_pending(p);
  }

  /// Several urgent allocations of one size at once: passes where the
  /// planner finds room for more than one of a kind.
  void burst() {
    int n = 2 + static_cast<int>(rng_() % 4);
    int slots = 1 << (rng_() % 3);
    int priority = rng_() % 2 == 0 ? 1 : 42;
    for (int i = 0; i < n; ++i) {
      pending_allocation p;
      p.id = "p" + std::to_string(next_order_);
      p.order = next_order_++;
      p.slots = slots;
      p.priority = priority;
      p.experiment_id = "e" + std::to_string(rng_() % 5);
      p.weight = 1.0;
      pending_[p.id] = p;
      inc_.upsert_pending(p);
    }
  }

  void remove_pending() {
    if (pending_.empty())
      return;
    auto it = pick(pending_);
    auto id = it->first;
    pending_.erase(it);
    inc_.remove_pending(id);
  }

  void reprioritise() {
    if (pending_.empty())
      return;
    auto& p = pick(pending_)->second;
    p.priority = 1 + static_cast<int>(rng_() % 99);
    inc_.upsert_pending(p);
  }

  void change_capacity() {
    pool_capacity c;
    if (rng_() % 2 == 0) {
      c.max_slots = INT_MAX;
    } else {
      c.slots_per_instance = 8;
      c.max_slots = 8 * static_cast<int>(1 + rng_() % 6);
    }
    inc_.set_capacity(c);
  }

  void start(const placement& p) {
    auto pit = pending_.find(p.allocation_id);
    if (pit == pending_.end())
      return;
    running_allocation r;
    r.id = p.allocation_id;
    r.experiment_id = pit->second.experiment_id;
    r.priority = pit->second.priority;
    r.order = pit->second.order;
    r.weight = pit->second.weight;
    r.preemptible = rng_() % 10 != 0;
    r.resources = p.resources;
    for (const auto& res : p.resources) {
      auto& a = agents_.at(res.agent_id);
      for (int s : res.slots)
        a.free_slots.erase(
            std::find(a.free_slots.begin(), a.free_slots.end(), s));
      inc_.upsert_agent(a);
    }
    pending_.erase(pit);
    inc_.remove_pending(r.id);
    running_[r.id] = r;
    inc_.upsert_running(r);
  }

  void mark_preempting(const std::string& id) {
    auto it = running_.find(id);
    if (it == running_.end())
      return;
    it->second.preempting = true;
    inc_.upsert_running(it->second);
  }

  void finish_running() {
    if (running_.empty())
      return;
    end_running(pick(running_)->first);
  }

  void end_running(const std::string& id) {
    auto it = running_.find(id);
    if (it == running_.end())
      return;
    for (const auto& res : it->second.resources) {
      auto a = agents_.find(res.agent_id);
      if (a == agents_.end())
        continue;
      for (int s : res.slots)
        a->second.free_slots.push_back(s);
      std::sort(a->second.free_slots.begin(), a->second.free_slots.end());
      inc_.upsert_agent(a->second);
    }
    // `id` may be the key erased here: tell the scheduler first.
    inc_.remove_running(id);
    running_.erase(it);
  }

  scheduler_config config_;
  std::mt19937 rng_;
  incremental_scheduler inc_;
  std::map<std::string, agent_view> agents_;
  std::map<std::string, pending_allocation> pending_;
  std::map<std::string, running_allocation> running_;
  uint64_t next_order_ = 1;
  int next_agent_ = 0;
};

struct config_case {
  const char* name;
  scheduler_config config;
};

scheduler_config scheduler_config_of(scheduling_policy policy,
                                     fitting_policy fitting, bool preemption,
                                     long long budget = 100000) {
  scheduler_config c;
  c.policy = policy;
  c.fitting = fitting;
  c.preemption = preemption;
  c.preemption_budget = budget;
  return c;
}

class incremental_matches_full : public ::testing::TestWithParam<config_case> {
};

TEST_P(incremental_matches_full, on_random_histories) {
  size_t placed = 0, preempted = 0;
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    history h{GetParam().config, seed};
    for (int i = 0; i < 80; ++i) {
      h.step();
      ASSERT_NO_FATAL_FAILURE(h.pass_and_apply())
          << "seed " << seed << " step " << i;
    }
    ASSERT_NO_FATAL_FAILURE(h.check_view()) << "seed " << seed;
    EXPECT_TRUE(h.scheduler().incremental());
    placed += h.placed_;
    preempted += h.preempted_;
  }
  // The histories exercise what they are meant to.
  EXPECT_GT(placed, 100u);
  if (GetParam().config.preemption
      || GetParam().config.policy == scheduling_policy::fair_share) {
    EXPECT_GT(preempted, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    policies, incremental_matches_full,
    ::testing::Values(
        config_case{"priority_best",
                    scheduler_config_of(scheduling_policy::priority,
                                        fitting_policy::best, false)},
        config_case{"priority_worst",
                    scheduler_config_of(scheduling_policy::priority,
                                        fitting_policy::worst, false)},
        config_case{"preemption_best",
                    scheduler_config_of(scheduling_policy::priority,
                                        fitting_policy::best, true)},
        config_case{"preemption_small_budget",
                    scheduler_config_of(scheduling_policy::priority,
                                        fitting_policy::best, true, 6)},
        config_case{"fair_share_best",
                    scheduler_config_of(scheduling_policy::fair_share,
                                        fitting_policy::best, false)},
        config_case{"fair_share_worst",
                    scheduler_config_of(scheduling_policy::fair_share,
                                        fitting_policy::worst, false)}),
    [](const auto& tc) { return std::string{tc.param.name}; });

TEST(incremental_scheduler, repeated_orders_fall_back_to_the_full_pass) {
  incremental_scheduler s{scheduler_config{}};
  s.set_capacity(pool_capacity{INT_MAX, 0});
  agent_view a;
  a.id = "a";
  a.total_slots = 1;
  a.free_slots = {0};
  s.upsert_agent(a);
  pending_allocation p;
  p.id = "x";
  p.order = 7;
  s.upsert_pending(p);
  p.id = "y";
  s.upsert_pending(p);
  EXPECT_FALSE(s.incremental());
  auto r = s.pass();
  EXPECT_EQ(describe(r), describe(schedule_pool(s.snapshot(), {})));
  ASSERT_EQ(r.placements.size(), 1u);
  s.remove_pending("x");
  EXPECT_TRUE(s.incremental());
}

TEST(incremental_scheduler, a_pass_leaves_the_view_as_it_was) {
  incremental_scheduler s{scheduler_config{}};
  s.set_capacity(pool_capacity{INT_MAX, 0});
  agent_view a;
  a.id = "a";
  a.total_slots = 4;
  a.free_slots = {0, 1, 2, 3};
  s.upsert_agent(a);
  pending_allocation p;
  p.id = "x";
  p.slots = 3;
  p.order = 1;
  s.upsert_pending(p);
  auto first = s.pass();
  ASSERT_EQ(first.placements.size(), 1u);
  // Nothing was reported back: the next pass decides the same.
  EXPECT_EQ(describe(s.pass()), describe(first));
  EXPECT_EQ(s.snapshot().agents.at(0).free_slots, a.free_slots);
}

TEST(incremental_scheduler, sync_brings_the_view_to_a_snapshot) {
  pool_snapshot snap;
  snap.capacity.max_slots = INT_MAX;
  for (int i = 0; i < 3; ++i) {
    agent_view a;
    a.id = "a" + std::to_string(i);
    a.total_slots = 2;
    a.free_slots = {0, 1};
    snap.agents.push_back(a);
  }
  for (int i = 0; i < 5; ++i) {
    pending_allocation p;
    p.id = "p" + std::to_string(i);
    p.order = static_cast<uint64_t>(i);
    p.slots = 1 + i % 2;
    snap.pending.push_back(p);
  }
  incremental_scheduler s{scheduler_config{}};
  s.sync(snap);
  EXPECT_EQ(describe(s.pass()), describe(schedule_pool(snap, {})));
  snap.agents.erase(snap.agents.begin());
  snap.pending.pop_back();
  s.sync(snap);
  EXPECT_EQ(s.snapshot().agents.size(), 2u);
  EXPECT_EQ(s.pending_count(), 4u);
  EXPECT_EQ(describe(s.pass()), describe(schedule_pool(snap, {})));
}

// The scheduler keeps each candidate victim's agent looked up between
// passes; an agent that joins (or leaves, freeing its place for another)
// must be seen by the next pass's search for victims.
TEST(incremental_scheduler, a_victim_on_an_agent_that_joins_later_is_found) {
  scheduler_config config;
  config.preemption = true;
  incremental_scheduler s{config};
  s.set_capacity(pool_capacity{INT_MAX, 0});
  agent_view a;
  a.id = "a";
  a.total_slots = 2;
  a.free_slots = {1};
  s.upsert_agent(a);
  running_allocation r1;
  r1.id = "r1";
  r1.priority = 50;
  r1.order = 1;
  r1.resources = {{"a", {0}}};
  s.upsert_running(r1);
  running_allocation r2 = r1;
  r2.id = "r2";
  r2.priority = 60;
  r2.order = 2;
  r2.resources = {{"b", {0, 1}}}; // b is not in the view yet
  s.upsert_running(r2);
  pending_allocation p;
  p.id = "p";
  p.slots = 2;
  p.priority = 55; // r2 may be preempted for it, r1 may not
  p.order = 3;
  s.upsert_pending(p);
  // r2 is searched (its agent unknown), and nothing makes room.
  auto first = s.pass();
  EXPECT_TRUE(first.preemptions.empty());
  EXPECT_EQ(describe(first), describe(schedule_pool(s.snapshot(), config)));

  agent_view b;
  b.id = "b";
  b.total_slots = 2;
  s.upsert_agent(b);
  auto second = s.pass();
  EXPECT_EQ(second.preemptions, std::vector<std::string>{"r2"});
  EXPECT_EQ(describe(second), describe(schedule_pool(s.snapshot(), config)));

  // b leaves and c takes its place in the index: r2's agent is gone.
  s.remove_agent("b");
  agent_view c = b;
  c.id = "c";
  c.free_slots = {};
  s.upsert_agent(c);
  auto third = s.pass();
  EXPECT_EQ(describe(third), describe(schedule_pool(s.snapshot(), config)));
  EXPECT_TRUE(third.preemptions.empty());
}

} // namespace
} // namespace det::policy
