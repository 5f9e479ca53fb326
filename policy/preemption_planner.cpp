#include "policy/preemption_planner.hpp"

#include <algorithm>

namespace det::policy::detail {

preemption_planner::preemption_planner(
    const std::vector<running_allocation>& running, slot_index& index,
    long long budget)
    : index_(index), budget_(budget) {
  std::vector<candidate> preempting;
  for (const auto& r : running) {
    if (!r.preempting && !r.preemptible)
      continue;
    candidate c{&r, {}, 0, false};
    for (const auto& res : r.resources) {
      auto a = index_.lookup(res.agent_id);
      if (a == slot_index::npos)
        continue;
      c.parts.push_back(part{a, &res.slots});
      c.slots += static_cast<int>(res.slots.size());
    }
    unconsumed_slots_ += c.slots;
    (r.preempting ? preempting : candidates_).push_back(std::move(c));
  }
  std::sort(candidates_.begin(), candidates_.end(),
            [](const candidate& x, const candidate& y) {
              if (x.run->priority != y.run->priority)
                return x.run->priority > y.run->priority;
              return x.run->order > y.run->order;
            });
  first_regular_ = preempting.size();
  candidates_.insert(candidates_.begin(),
                     std::make_move_iterator(preempting.begin()),
                     std::make_move_iterator(preempting.end()));
  skip_.resize(candidates_.size() + 1);
  for (size_t i = 0; i < skip_.size(); ++i)
    skip_[i] = i;
}

size_t preemption_planner::next_unconsumed(size_t i) {
  size_t root = i;
  while (skip_[root] != root)
    root = skip_[root];
  while (skip_[i] != root) {
    auto next = skip_[i];
    skip_[i] = root;
    i = next;
  }
  return root;
}

bool preemption_planner::eligible(const candidate& c,
                                  const pending_allocation& p) {
  if (c.run->priority != p.priority)
    return c.run->priority > p.priority;
  return c.run->order > p.order;
}

void preemption_planner::release(const candidate& c) {
  for (const auto& pt : c.parts)
    index_.release(pt.agent, *pt.slots);
}

void preemption_planner::restore(const candidate& c) {
  for (const auto& pt : c.parts)
    index_.take_exact(pt.agent, *pt.slots);
}

bool preemption_planner::make_room(const pending_allocation& p,
                                   std::vector<std::string>& preemptions) {
  if (budget_ <= 0 || failed_sizes_.count(p.slots) != 0
      || index_.free_total() + unconsumed_slots_ < p.slots)
    return false;
  std::vector<size_t> released;
  bool fits = false;
  bool out_of_budget = false;
  for (size_t i = next_unconsumed(0); i < candidates_.size() && !fits;
       i = next_unconsumed(i + 1)) {
    auto& c = candidates_[i];
    if (i >= first_regular_ && !eligible(c, p))
      break; // sorted: every later candidate is at least as urgent
    if (--budget_ < 0) {
      out_of_budget = true;
      break;
    }
    release(c);
    released.push_back(i);
    fits = index_.find_for(p, fit_);
  }
  if (!fits) {
    for (auto i : released)
      restore(candidates_[i]);
    // A failure for an allocation that avoids agents says nothing of the
    // others of its size.
    if (!out_of_budget && p.avoid_agents.empty())
      failed_sizes_.insert(p.slots);
    return false;
  }
  // Spare every victim the fit does not need, most urgent first.
  std::vector<size_t> needed;
  for (auto it = released.rbegin(); it != released.rend(); ++it) {
    const auto& c = candidates_[*it];
    --budget_;
    restore(c);
    if (index_.find_for(p, fit_))
      continue;
    release(c);
    needed.push_back(*it);
  }
  if (!index_.find_for(p, fit_))
    return false; // unreachable: the last state was a fitting one
  index_.take(fit_);
  for (auto i : needed) {
    auto& c = candidates_[i];
    c.consumed = true;
    skip_[i] = i + 1;
    unconsumed_slots_ -= c.slots;
    // Slots of the victim that the fit left over stay busy until it stops.
    restore(c);
    if (!c.run->preempting)
      preemptions.push_back(c.run->id);
  }
  return true;
}

} // namespace det::policy::detail
