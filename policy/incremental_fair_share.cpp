// incremental_scheduler's fair-share pass: the steps of run_fair_share
// (fair_share_pass.cpp) over the groups the scheduler keeps between
// passes, so that a pass walks experiments and what it places, not every
// waiting allocation.

#include "policy/capacity.hpp"
#include "policy/fair_shares.hpp"
#include "policy/incremental_scheduler.hpp"

#include <algorithm>
#include <cstdint>

namespace det::policy {

namespace {

using pending_queue = incremental_scheduler::queue<pending_allocation>;

/// A group's pending allocations of sizes that can ever fit, in (order, id)
/// order: a merge of its per-size queues.
struct merged_queues {
  std::vector<
      std::pair<pending_queue::const_iterator, pending_queue::const_iterator>>
      queues;

  [[nodiscard]] size_t best() const {
    size_t b = queues.size();
    for (size_t i = 0; i < queues.size(); ++i)
      if (queues[i].first != queues[i].second
          && (b == queues.size()
              || queues[i].first->first < queues[b].first->first))
        b = i;
    return b;
  }
  [[nodiscard]] const pending_allocation* peek() const {
    auto b = best();
    return b == queues.size() ? nullptr : queues[b].first->second;
  }
  void advance() {
    auto b = best();
    if (b != queues.size())
      ++queues[b].first;
  }
};

struct share_view {
  double weight = 1.0;
  uint64_t first_order = UINT64_MAX;
  long long active = 0;
  long long soon_free = 0;
  long long demand = 0;
  long long offer = 0;
  long long placed = 0;
  merged_queues next;
  const incremental_scheduler::queue<running_allocation>* running = nullptr;
};

long long slots_held(const running_allocation& r) {
  long long n = 0;
  for (const auto& res : r.resources)
    n += static_cast<long long>(res.slots.size());
  return n;
}

} // namespace

schedule_result incremental_scheduler::fair_share_pass() {
  schedule_result out;
  capacity_check capacity{capacity_, agents_by_size_};
  {
    std::vector<const queue<pending_allocation>*> never;
    for (const auto& [size, q] : pending_by_size_)
      if (!capacity.can_ever_fit(size))
        never.push_back(&q);
    unschedulable_in_order(never, capacity, out);
  }
  std::vector<share_view> groups;
  groups.reserve(groups_.size());
  for (const auto& [id, g] : groups_) {
    share_view v;
    double weight = 0;
    bool any = false;
    for (const auto& [size, q] : g.by_size) {
      if (!capacity.can_ever_fit(size))
        continue;
      any = true;
      v.next.queues.emplace_back(q.begin(), q.end());
      v.demand +=
          static_cast<long long>(size) * static_cast<long long>(q.size());
      weight =
          std::max(weight, std::max(g.pending_weights.at(size).max(), 1e-6));
      v.first_order = std::min(v.first_order, q.begin()->first.first);
    }
    if (!g.running.empty()) {
      any = true;
      weight = std::max(weight, std::max(g.running_weights.max(), 1e-6));
      v.first_order = std::min(v.first_order, g.running.begin()->first.first);
    }
    if (!any)
      continue;
    v.weight = weight;
    v.active = g.active;
    v.soon_free = g.soon_free;
    v.demand += g.active;
    v.running = &g.running;
    groups.push_back(std::move(v));
  }
  // As the full pass: a provisioned pool's shares are of the slots it
  // grows to for the demand, up to its maximum.
  long long offered = pool_slots_;
  if (capacity_.slots_per_instance > 0) {
    long long demand = 0;
    for (const auto& g : groups)
      demand += g.demand;
    offered =
        std::max(offered, std::min<long long>(capacity_.max_slots, demand));
  }
  detail::offer_shares(groups, offered);

  // Experiments within their share start allocations in queue order.
  std::sort(groups.begin(), groups.end(),
            [](const share_view& a, const share_view& b) {
              return a.first_order < b.first_order;
            });
  std::vector<slot_index::part> fit;
  long long starved = 0;
  for (auto& g : groups) {
    for (const pending_allocation* p; (p = g.next.peek()) != nullptr;
         g.next.advance()) {
      if (g.active + g.placed + p->slots > g.offer)
        break;
      if (!index_->find_for(*p, fit)) {
        long long budget = g.offer - g.active - g.placed;
        auto rest = g.next;
        for (const pending_allocation* r; (r = rest.peek()) != nullptr;
             rest.advance()) {
          if (r->slots > budget)
            break;
          starved += r->slots;
          budget -= r->slots;
        }
        break;
      }
      out.placements.push_back(placement{p->id, index_->take(fit)});
      g.placed += p->slots;
    }
  }

  long long soon_free = 0;
  for (const auto& g : groups)
    soon_free += g.soon_free;
  if (starved > soon_free) {
    std::vector<share_view*> over;
    for (auto& g : groups)
      if (g.active > g.offer)
        over.push_back(&g);
    std::sort(over.begin(), over.end(), [](share_view* a, share_view* b) {
      double x = static_cast<double>(a->active - a->offer) / a->weight;
      double y = static_cast<double>(b->active - b->offer) / b->weight;
      return x != y ? x > y : a->first_order > b->first_order;
    });
    long long need = starved - soon_free;
    for (auto* g : over) {
      for (auto it = g->running->rbegin(); it != g->running->rend(); ++it) {
        // Victims have at least zero slots: once the excess is gone no
        // later one qualifies.
        if (need <= 0 || g->active - g->offer <= 0)
          break;
        const auto* r = it->second;
        if (r->preempting)
          continue;
        auto n = slots_held(*r);
        if (!r->preemptible || n >= 2 * (g->active - g->offer))
          continue;
        out.preemptions.push_back(r->id);
        g->active -= n;
        need -= n;
      }
    }
    return out;
  }
  if (starved > 0)
    return out;

  std::sort(groups.begin(), groups.end(),
            [](const share_view& a, const share_view& b) {
              double x = static_cast<double>(a.active + a.placed) / a.weight;
              double y = static_cast<double>(b.active + b.placed) / b.weight;
              return x != y ? x < y : a.first_order < b.first_order;
            });
  for (auto& g : groups) {
    for (const pending_allocation* p;
         index_->free_total() > 0 && (p = g.next.peek()) != nullptr;
         g.next.advance()) {
      if (!index_->find_for(*p, fit))
        break;
      out.placements.push_back(placement{p->id, index_->take(fit)});
      g.placed += p->slots;
    }
  }
  return out;
}

} // namespace det::policy
