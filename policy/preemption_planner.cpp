#include "policy/preemption_planner.hpp"

#include <algorithm>

namespace det::policy::detail {

preemption_planner::preemption_planner(
    const std::vector<running_allocation>& running, slot_index& index,
    long long budget)
    : index_(index), budget_(budget) {
  std::vector<const running_allocation*> regular;
  for (const auto& r : running) {
    if (!r.preempting && !r.preemptible)
      continue;
    unconsumed_slots_ += make_candidate(r).slots;
    (r.preempting ? sorted_ : regular).push_back(&r);
  }
  std::sort(regular.begin(), regular.end(),
            [](const running_allocation* x, const running_allocation* y) {
              if (x->priority != y->priority)
                return x->priority > y->priority;
              return x->order > y->order;
            });
  sorted_.insert(sorted_.end(), regular.begin(), regular.end());
  next_ = [this, i = size_t{0}]() mutable -> const running_allocation* {
    return i < sorted_.size() ? sorted_[i++] : nullptr;
  };
  skip_.push_back(0);
}

preemption_planner::preemption_planner(source next, long long candidate_slots,
                                       slot_index& index, long long budget)
    : index_(index), next_(std::move(next)), unconsumed_slots_(candidate_slots),
      budget_(budget) {
  skip_.push_back(0);
}

preemption_planner::candidate
preemption_planner::make_candidate(const running_allocation& r) {
  candidate c{&r, {}, 0, false};
  for (const auto& res : r.resources) {
    auto a = index_.lookup(res.agent_id);
    if (a == slot_index::npos)
      continue;
    c.parts.push_back(part{a, &res.slots});
    c.slots += static_cast<int>(res.slots.size());
  }
  return c;
}

bool preemption_planner::have(size_t i) {
  while (candidates_.size() <= i) {
    const auto* r = next_();
    if (r == nullptr)
      return false;
    candidates_.push_back(make_candidate(*r));
    // The old sentinel (itself) becomes the new candidate's entry.
    skip_.push_back(candidates_.size());
  }
  return true;
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
  for (size_t i = next_unconsumed(0); have(i) && !fits;
       i = next_unconsumed(i + 1)) {
    auto& c = candidates_[i];
    if (!c.run->preempting && !eligible(c, p))
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
