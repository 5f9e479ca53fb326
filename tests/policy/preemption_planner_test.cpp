// The preemption planner against the plain search it must equal: release
// the candidates one by one and ask the index after every step, then put
// the victims back one by one, most urgent first, asking after every step.
// The planner asks the index only when the answer may have changed and
// keeps the releases on agents that cannot hold the fit out of the index;
// on random pools both must choose the same victims, report the same
// outcomes, leave the index with the same free slots and charge the same
// budget (so they run out at the same step).

#include "policy/preemption_planner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace det::policy {
namespace {

/// The search written plainly, as the planner's header describes it.
class plain_planner {
public:
  plain_planner(const std::vector<running_allocation>& running,
                slot_index& index, long long budget)
      : index_(index), budget_(budget) {
    std::vector<const running_allocation*> regular;
    for (const auto& r : running) {
      if (r.preempting)
        order_.push_back(&r);
      else if (r.preemptible)
        regular.push_back(&r);
    }
    std::sort(regular.begin(), regular.end(), [](auto* x, auto* y) {
      return x->priority != y->priority ? x->priority > y->priority
                                        : x->order > y->order;
    });
    order_.insert(order_.end(), regular.begin(), regular.end());
    consumed_.assign(order_.size(), false);
    for (const auto* r : order_)
      unconsumed_slots_ += slots_known(*r);
  }

  bool make_room(const pending_allocation& p,
                 std::vector<std::string>& preemptions) {
    if (budget_ <= 0
        || std::find(failed_.begin(), failed_.end(), p.slots) != failed_.end()
        || index_.free_total() + unconsumed_slots_ < p.slots)
      return false;
    std::vector<size_t> released;
    bool fits = false;
    bool out_of_budget = false;
    for (size_t i = 0; i < order_.size() && !fits; ++i) {
      if (consumed_[i])
        continue;
      const auto& r = *order_[i];
      if (!r.preempting
          && !(r.priority != p.priority ? r.priority > p.priority
                                        : r.order > p.order))
        break;
      if (--budget_ < 0) {
        out_of_budget = true;
        break;
      }
      apply(r, true);
      released.push_back(i);
      fits = index_.find_for(p, fit_);
    }
    if (!fits) {
      for (auto i : released)
        apply(*order_[i], false);
      if (!out_of_budget && p.avoid_agents.empty())
        failed_.push_back(p.slots);
      return false;
    }
    std::vector<size_t> needed;
    for (auto it = released.rbegin(); it != released.rend(); ++it) {
      --budget_;
      apply(*order_[*it], false);
      if (index_.find_for(p, fit_))
        continue;
      apply(*order_[*it], true);
      needed.push_back(*it);
    }
    EXPECT_TRUE(index_.find_for(p, fit_));
    index_.take(fit_);
    for (auto i : needed) {
      consumed_[i] = true;
      unconsumed_slots_ -= slots_known(*order_[i]);
      apply(*order_[i], false);
      if (!order_[i]->preempting)
        preemptions.push_back(order_[i]->id);
    }
    return true;
  }

private:
  int slots_known(const running_allocation& r) {
    int n = 0;
    for (const auto& res : r.resources)
      if (index_.lookup(res.agent_id) != slot_index::npos)
        n += static_cast<int>(res.slots.size());
    return n;
  }
  void apply(const running_allocation& r, bool release) {
    for (const auto& res : r.resources) {
      auto a = index_.lookup(res.agent_id);
      if (a == slot_index::npos)
        continue;
      if (release)
        index_.release(a, res.slots);
      else
        index_.take_exact(a, res.slots);
    }
  }

  slot_index& index_;
  long long budget_;
  std::vector<const running_allocation*> order_;
  std::vector<bool> consumed_;
  long long unconsumed_slots_ = 0;
  std::vector<int> failed_;
  std::vector<slot_index::part> fit_;
};

struct planner_pool {
  std::vector<agent_view> agents;
  std::vector<running_allocation> running;
  std::vector<pending_allocation> pending;
};

/// Agents of 1-8 slots (some disabled or draining), running allocations
/// of one slot, several slots, or a gang over idle agents of one size,
/// some already preempting, some not preemptible; pending allocations of
/// every size, some avoiding agents, in queue order.
planner_pool make_random_pool(std::mt19937& rng) {
  planner_pool pool;
  const int sizes[] = {1, 2, 4, 8};
  int n_agents = 2 + static_cast<int>(rng() % 40);
  uint64_t order = 0;
  for (int i = 0; i < n_agents; ++i) {
    agent_view a;
    a.id = "agent-" + std::to_string(i);
    a.total_slots = sizes[rng() % 4];
    a.enabled = rng() % 12 != 0;
    a.draining = rng() % 15 == 0;
    for (int s = 0; s < a.total_slots; ++s)
      a.free_slots.push_back(s);
    pool.agents.push_back(std::move(a));
  }
  auto add_running = [&](std::vector<agent_slots> res) {
    running_allocation r;
    r.id = "run-" + std::to_string(pool.running.size());
    r.priority = 1 + static_cast<int>(rng() % 6) * 10;
    r.order = order++;
    r.preemptible = rng() % 8 != 0;
    r.preempting = rng() % 6 == 0;
    r.resources = std::move(res);
    pool.running.push_back(std::move(r));
  };
  for (int k = 0; k < n_agents * 3; ++k) {
    auto& a = pool.agents[rng() % pool.agents.size()];
    if (a.free_slots.empty())
      continue;
    if (rng() % 7 == 0
        && a.free_slots.size() == static_cast<size_t>(a.total_slots)) {
      // A gang: this idle agent and others of its size.
      std::vector<agent_slots> res{{a.id, a.free_slots}};
      a.free_slots.clear();
      for (auto& b : pool.agents)
        if (res.size() < 3 && b.id != res[0].agent_id
            && b.total_slots == a.total_slots
            && b.free_slots.size() == static_cast<size_t>(b.total_slots)
            && rng() % 2 == 0) {
          res.push_back({b.id, b.free_slots});
          b.free_slots.clear();
        }
      add_running(std::move(res));
      continue;
    }
    size_t take = 1 + rng() % std::min<size_t>(a.free_slots.size(), 3);
    std::vector<int> slots;
    for (size_t t = 0; t < take; ++t) {
      auto at = rng() % a.free_slots.size();
      slots.push_back(a.free_slots[at]);
      a.free_slots.erase(a.free_slots.begin() + static_cast<long>(at));
    }
    std::sort(slots.begin(), slots.end());
    add_running({{a.id, slots}});
  }
  const int needs[] = {1, 1, 2, 3, 4, 8, 16, 24};
  int n_pending = 1 + static_cast<int>(rng() % 30);
  for (int i = 0; i < n_pending; ++i) {
    pending_allocation p;
    p.id = "pend-" + std::to_string(i);
    p.slots = needs[rng() % 8];
    p.priority = 1 + static_cast<int>(rng() % 6) * 10;
    p.order = order++;
    if (rng() % 6 == 0)
      p.avoid_agents.push_back(pool.agents[rng() % pool.agents.size()].id);
    pool.pending.push_back(std::move(p));
  }
  std::stable_sort(
      pool.pending.begin(), pool.pending.end(),
      [](const auto& x, const auto& y) { return x.priority < y.priority; });
  return pool;
}

/// What a pass does with a planner: place what fits, make room for what
/// does not. Returns a transcript of every outcome.
template <class Planner, class... Reuse>
std::string run_pass(const planner_pool& pool, long long budget,
                     fitting_policy fitting, Reuse... reuse) {
  slot_index index{pool.agents, fitting};
  Planner planner{pool.running, index, budget, reuse...};
  std::string out;
  std::vector<slot_index::part> fit;
  for (const auto& p : pool.pending) {
    if (index.find_for(p, fit)) {
      out += "place " + p.id + ":";
      for (const auto& res : index.take(fit)) {
        out += " " + res.agent_id + "[";
        for (int s : res.slots)
          out += std::to_string(s) + ",";
        out += "]";
      }
      out += "\n";
      continue;
    }
    std::vector<std::string> victims;
    bool room = planner.make_room(p, victims);
    out += "room " + p.id + (room ? " yes:" : " no:");
    for (const auto& v : victims)
      out += " " + v;
    out += "\n";
  }
  out += "free:";
  for (const auto& a : pool.agents)
    out += " " + std::to_string(index.free_on(index.lookup(a.id)));
  return out;
}

TEST(preemption_planner, decides_as_the_plain_search_on_random_pools) {
  std::mt19937 rng{20261201};
  int rooms = 0, victims = 0;
  // One set of arrays handed from planner to planner over every round, as
  // the incremental scheduler keeps them from pass to pass: nothing a
  // planner leaves in them may change what the next one decides.
  detail::preemption_planner::buffers kept;
  for (int round = 0; round < 1500; ++round) {
    auto pool = make_random_pool(rng);
    long long budget =
        rng() % 4 == 0 ? 1 + static_cast<long long>(rng() % 12) : 100000;
    auto fitting =
        rng() % 2 == 0 ? fitting_policy::best : fitting_policy::worst;
    auto want = run_pass<plain_planner>(pool, budget, fitting);
    auto got = run_pass<detail::preemption_planner>(pool, budget, fitting);
    ASSERT_EQ(got, want) << "round " << round << ", budget " << budget;
    auto reused =
        run_pass<detail::preemption_planner>(pool, budget, fitting, &kept);
    ASSERT_EQ(reused, want) << "round " << round << " with the arrays kept";
    for (size_t at = want.find(" yes:"); at != std::string::npos;
         at = want.find(" yes:", at + 1))
      ++rooms;
    for (size_t at = want.find(" run-"); at != std::string::npos;
         at = want.find(" run-", at + 1))
      ++victims;
  }
  // The pools must exercise the search, not only the places.
  EXPECT_GT(rooms, 500);
  EXPECT_GT(victims, 500);
}

} // namespace
} // namespace det::policy
