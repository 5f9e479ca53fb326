#pragma once

// Internal to the fair-share passes (full and incremental): weighted
// max-min fair shares of a pool's slots between experiments.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace det::policy::detail {

/// Sets `offer` of every group (fields weight, demand, first_order, offer)
/// by progressive filling: a group asking for less than its weighted share
/// gets what it asks, the rest is split by weight. Integer rounding
/// leftovers go to the earliest registered groups still short. Groups must
/// have distinct first_order values for the result to be one function of
/// the groups (the passes guarantee it).
template <class Group>
void offer_shares(std::vector<Group>& groups, long long capacity) {
  std::vector<Group*> by_need;
  for (auto& g : groups)
    if (g.demand > 0)
      by_need.push_back(&g);
  std::sort(by_need.begin(), by_need.end(), [](Group* a, Group* b) {
    double x = static_cast<double>(a->demand) / a->weight;
    double y = static_cast<double>(b->demand) / b->weight;
    return x != y ? x < y : a->first_order < b->first_order;
  });
  long long remaining = capacity;
  double weights = 0;
  for (auto* g : by_need)
    weights += g->weight;
  size_t k = 0;
  for (; k < by_need.size(); ++k) {
    auto* g = by_need[k];
    double fair = static_cast<double>(remaining) * g->weight / weights;
    if (static_cast<double>(g->demand) > fair)
      break;
    g->offer = g->demand;
    remaining -= g->demand;
    weights -= g->weight;
  }
  std::vector<Group*> rest(by_need.begin() + static_cast<std::ptrdiff_t>(k),
                           by_need.end());
  long long handed = 0;
  for (auto* g : rest) {
    g->offer = static_cast<long long>(
        std::floor(static_cast<double>(remaining) * g->weight / weights));
    g->offer = std::min(g->offer, g->demand);
    handed += g->offer;
  }
  std::sort(rest.begin(), rest.end(),
            [](Group* a, Group* b) { return a->first_order < b->first_order; });
  for (long long left = remaining - handed; left > 0;) {
    bool gave = false;
    for (auto* g : rest)
      if (left > 0 && g->offer < g->demand) {
        ++g->offer;
        --left;
        gave = true;
      }
    if (!gave)
      break;
  }
}

} // namespace det::policy::detail
