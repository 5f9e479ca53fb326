// The fair_share policy of pool_scheduler.hpp.

#include "policy/fair_shares.hpp"
#include "policy/scheduler_passes.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

namespace det::policy::detail {

namespace {

struct group {
  std::string_view id;
  double weight = 1.0;
  uint64_t first_order = UINT64_MAX;
  long long active = 0;    // slots of running, not preempting allocations
  long long soon_free = 0; // slots of allocations already preempting
  long long demand = 0;    // active + pending slots
  long long offer = 0;
  long long placed = 0;
  size_t next = 0; // first pending not yet placed
  std::vector<uint32_t> pending;
  std::vector<const running_allocation*> running;
};

long long slots_of(const running_allocation& r) {
  long long n = 0;
  for (const auto& res : r.resources)
    n += static_cast<long long>(res.slots.size());
  return n;
}

} // namespace

void run_fair_share(const pool_snapshot& snapshot, slot_index& index,
                    capacity_check& capacity, schedule_result& out) {
  std::vector<group> groups;
  std::unordered_map<std::string_view, size_t> by_id;
  auto group_of = [&](const std::string& id, double weight) -> group& {
    auto [it, added] = by_id.emplace(id, groups.size());
    if (added) {
      groups.emplace_back();
      groups.back().id = it->first;
      groups.back().weight = 0;
    }
    auto& g = groups[it->second];
    g.weight = std::max(g.weight, std::max(weight, 1e-6));
    return g;
  };
  for (size_t i = 0; i < snapshot.pending.size(); ++i) {
    const auto& p = snapshot.pending[i];
    if (!capacity.can_ever_fit(p.slots)) {
      out.unschedulable.push_back(
          never_fits{p.id, *capacity.never_fits(p.slots)});
      continue;
    }
    auto& g = group_of(p.experiment_id, p.weight);
    g.pending.push_back(static_cast<uint32_t>(i));
    g.demand += p.slots;
    g.first_order = std::min(g.first_order, p.order);
  }
  for (const auto& r : snapshot.running) {
    auto& g = group_of(r.experiment_id, r.weight);
    g.first_order = std::min(g.first_order, r.order);
    auto n = slots_of(r);
    if (r.preempting) {
      g.soon_free += n;
    } else {
      g.active += n;
      g.demand += n;
      g.running.push_back(&r);
    }
  }
  long long pool_slots = 0;
  for (const auto& a : snapshot.agents)
    if (a.enabled && !a.draining)
      pool_slots += a.total_slots;
  // A provisioned pool grows for its demand up to its maximum: shares are
  // of what it is growing to, not of the agents connected so far.
  // Otherwise, while instances boot, an experiment over its share of the
  // few connected slots is preempted only for its trials to wait for the
  // new instances: a checkpoint and a restart for nothing.
  if (snapshot.capacity.slots_per_instance > 0) {
    long long demand = 0;
    for (const auto& g : groups)
      demand += g.demand;
    pool_slots = std::max(
        pool_slots, std::min<long long>(snapshot.capacity.max_slots, demand));
  }
  offer_shares(groups, pool_slots);

  // Experiments within their share start allocations in queue order.
  std::sort(groups.begin(), groups.end(), [](const group& a, const group& b) {
    return a.first_order < b.first_order;
  });
  std::vector<slot_index::part> fit;
  long long starved = 0;
  for (auto& g : groups) {
    auto by_order = [&](uint32_t x, uint32_t y) {
      const auto& a = snapshot.pending[x];
      const auto& b = snapshot.pending[y];
      return a.order != b.order ? a.order < b.order : x < y;
    };
    // Already in order when the master lists pending trials by id: one
    // linear check instead of a sort that jumps around the pending list.
    if (!std::is_sorted(g.pending.begin(), g.pending.end(), by_order))
      std::sort(g.pending.begin(), g.pending.end(), by_order);
    for (; g.next < g.pending.size(); ++g.next) {
      const auto& p = snapshot.pending[g.pending[g.next]];
      if (g.active + g.placed + p.slots > g.offer)
        break;
      if (!index.find_for(p, fit)) {
        // Everything it is entitled to and waits for counts as starved.
        long long budget = g.offer - g.active - g.placed;
        for (size_t k = g.next; k < g.pending.size(); ++k) {
          int n = snapshot.pending[g.pending[k]].slots;
          if (n > budget)
            break;
          starved += n;
          budget -= n;
        }
        break;
      }
      out.placements.push_back(placement{p.id, index.take(fit)});
      g.placed += p.slots;
    }
  }

  long long soon_free = 0;
  for (const auto& g : groups)
    soon_free += g.soon_free;
  if (starved > soon_free) {
    // Take back from the most over-served experiments, newest allocations
    // first, but only while giving back brings an experiment closer to its
    // share (a victim smaller than twice the excess): that keeps gangs from
    // bouncing between two experiments pass after pass.
    std::vector<group*> over;
    for (auto& g : groups)
      if (g.active > g.offer)
        over.push_back(&g);
    std::sort(over.begin(), over.end(), [](group* a, group* b) {
      double x = static_cast<double>(a->active - a->offer) / a->weight;
      double y = static_cast<double>(b->active - b->offer) / b->weight;
      return x != y ? x > y : a->first_order > b->first_order;
    });
    long long need = starved - soon_free;
    for (auto* g : over) {
      std::sort(g->running.begin(), g->running.end(),
                [](const running_allocation* a, const running_allocation* b) {
                  return a->order > b->order;
                });
      for (const auto* r : g->running) {
        if (need <= 0)
          break;
        auto n = slots_of(*r);
        if (!r->preemptible || n >= 2 * (g->active - g->offer))
          continue;
        out.preemptions.push_back(r->id);
        g->active -= n;
        need -= n;
      }
    }
    return;
  }
  if (starved > 0)
    return; // room is on its way; do not lend it out meanwhile

  // Lend free slots nobody is entitled to, least served experiments first.
  std::sort(groups.begin(), groups.end(), [](const group& a, const group& b) {
    double x = static_cast<double>(a.active + a.placed) / a.weight;
    double y = static_cast<double>(b.active + b.placed) / b.weight;
    return x != y ? x < y : a.first_order < b.first_order;
  });
  for (auto& g : groups) {
    for (; g.next < g.pending.size() && index.free_total() > 0; ++g.next) {
      const auto& p = snapshot.pending[g.pending[g.next]];
      if (!index.find_for(p, fit))
        break;
      out.placements.push_back(placement{p.id, index.take(fit)});
      g.placed += p.slots;
    }
  }
}

} // namespace det::policy::detail
