#include "policy/preemption_planner.hpp"

#include <algorithm>

namespace det::policy::detail {

preemption_planner::preemption_planner(
    const std::vector<running_allocation>& running, slot_index& index,
    long long budget, buffers* reuse)
    : index_(index), reuse_(reuse), budget_(budget) {
  adopt_buffers();
  std::vector<const running_allocation*> regular;
  for (const auto& r : running) {
    if (!r.preempting && !r.preemptible)
      continue;
    unconsumed_slots_ += known_slots(r);
    (r.preempting ? sorted_ : regular).push_back(&r);
  }
  std::sort(regular.begin(), regular.end(),
            [](const running_allocation* x, const running_allocation* y) {
              if (x->priority != y->priority)
                return x->priority > y->priority;
              return x->order > y->order;
            });
  sorted_.insert(sorted_.end(), regular.begin(), regular.end());
  next_ = [this, i = size_t{0}]() mutable -> source_item {
    if (i == sorted_.size())
      return {};
    const auto* r = sorted_[i++];
    return source_item{r, r->order, r->priority, r->preempting};
  };
  skip_.push_back(0);
}

preemption_planner::preemption_planner(source next, long long candidate_slots,
                                       slot_index& index, long long budget,
                                       buffers* reuse)
    : index_(index), reuse_(reuse), next_(std::move(next)),
      unconsumed_slots_(candidate_slots), budget_(budget) {
  adopt_buffers();
  skip_.push_back(0);
}

void preemption_planner::adopt_buffers() {
  if (reuse_ == nullptr)
    return;
  reuse_->candidates.clear();
  reuse_->parts.clear();
  reuse_->skip.clear();
  swap_buffers(*reuse_);
}

preemption_planner::~preemption_planner() {
  if (reuse_ == nullptr)
    return;
  drop_noted(); // every note untouched again (a make_room left by a throw)
  swap_buffers(*reuse_);
}

void preemption_planner::swap_buffers(buffers& b) {
  candidates_.swap(b.candidates);
  parts_.swap(b.parts);
  skip_.swap(b.skip);
  notes_.swap(b.notes);
  noted_.swap(b.noted);
  noted_agents_.swap(b.noted_agents);
  in_index_candidates_.swap(b.in_index_candidates);
  released_.swap(b.released);
  needed_.swap(b.needed);
}

int preemption_planner::known_slots(const running_allocation& r) {
  int n = 0;
  for (const auto& res : r.resources)
    if (index_.lookup(res.agent_id) != slot_index::npos)
      n += static_cast<int>(res.slots.size());
  return n;
}

void preemption_planner::append_candidate(const source_item& item) {
  candidate c;
  c.run = item.run;
  c.order = item.order;
  c.priority = item.priority;
  c.preempting = item.preempting;
  c.first_part = static_cast<uint32_t>(parts_.size());
  auto add = [&](slot_index::agent_ref a, int n,
                 const std::vector<int>* slots) {
    if (a == slot_index::npos)
      return;
    parts_.push_back(part{a, n, slots});
    c.slots += n;
    if (a >= notes_.size())
      notes_.resize(a + 1);
  };
  if (item.resolved)
    add(item.agent, item.count, item.slots);
  else
    for (const auto& res : item.run->resources)
      add(index_.lookup(res.agent_id), static_cast<int>(res.slots.size()),
          &res.slots);
  c.part_count = static_cast<uint32_t>(parts_.size()) - c.first_part;
  candidates_.push_back(c);
}

bool preemption_planner::have(size_t i) {
  while (candidates_.size() <= i) {
    auto item = next_();
    if (item.run == nullptr)
      return false;
    append_candidate(item);
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
  if (c.priority != p.priority)
    return c.priority > p.priority;
  return c.order > p.order;
}

bool preemption_planner::counts_for(slot_index::agent_ref a,
                                    const pending_allocation& p) const {
  int free = index_.free_on(a) + notes_[a].slots;
  return free >= p.slots || free >= index_.total_on(a);
}

bool preemption_planner::take_out(size_t i, const pending_allocation& p) {
  const auto& c = candidates_[i];
  bool counts = false;
  for (auto k = c.first_part; k < c.first_part + c.part_count; ++k) {
    const auto& pt = parts_[k];
    auto& note = notes_[pt.agent];
    if (note.head == agent_note::in_index) {
      index_.release(pt.agent, *pt.slots);
      in_index_candidates_.push_back(i);
    } else {
      if (note.head == agent_note::untouched)
        noted_agents_.push_back(pt.agent);
      noted_.push_back(noted_part{static_cast<uint32_t>(i), k, note.head});
      note.head = static_cast<int32_t>(noted_.size() - 1);
      note.slots += pt.count;
      if (!counts_for(pt.agent, p))
        continue;
      for (auto n = note.head; n >= 0;
           n = noted_[static_cast<size_t>(n)].next) {
        const auto& np = noted_[static_cast<size_t>(n)];
        index_.release(pt.agent, *parts_[np.part].slots);
        in_index_candidates_.push_back(np.candidate);
      }
      note.slots = 0;
      note.head = agent_note::in_index;
    }
    counts = counts || counts_for(pt.agent, p);
  }
  return counts;
}

void preemption_planner::spare_step(size_t i, bool restore_it) {
  const auto& c = candidates_[i];
  for (auto k = c.first_part; k < c.first_part + c.part_count; ++k) {
    const auto& pt = parts_[k];
    if (notes_[pt.agent].head != agent_note::in_index)
      continue;
    if (restore_it)
      index_.take_exact(pt.agent, *pt.slots);
    else
      index_.release(pt.agent, *pt.slots);
  }
}

void preemption_planner::drop_noted() {
  for (auto a : noted_agents_)
    notes_[a] = agent_note{};
  noted_agents_.clear();
  noted_.clear();
  in_index_candidates_.clear();
}

bool preemption_planner::touches(
    const candidate& c, const std::vector<slot_index::part>& fit) const {
  for (auto k = c.first_part; k < c.first_part + c.part_count; ++k)
    for (const auto& f : fit)
      if (f.agent == parts_[k].agent)
        return true;
  return false;
}

void preemption_planner::restore(const candidate& c) {
  for (auto k = c.first_part; k < c.first_part + c.part_count; ++k)
    index_.take_exact(parts_[k].agent, *parts_[k].slots);
}

bool preemption_planner::make_room(const pending_allocation& p,
                                   std::vector<std::string>& preemptions) {
  if (budget_ <= 0 || failed_sizes_.count(p.slots) != 0
      || index_.free_total() + unconsumed_slots_ < p.slots)
    return false;
  // What the index finds for p depends only on the agents that count for
  // it (p.slots free, or idle). The search releases into the index only on
  // those agents, notes the other releases aside, and asks the index only
  // when the answer may have changed: after a release on an agent that
  // counts, or a restore on an agent of the last fit found. The steps
  // charged to the budget, and so every decision, are those of releasing
  // every candidate and asking after each step.
  auto& released = released_;
  released.clear();
  bool fits = false;
  bool known_unfit = false; // no fit as of the last change that could open one
  bool out_of_budget = false;
  for (size_t i = next_unconsumed(0); have(i) && !fits;
       i = next_unconsumed(i + 1)) {
    auto& c = candidates_[i];
    if (!c.preempting && !eligible(c, p))
      break; // sorted: every later candidate is at least as urgent
    if (--budget_ < 0) {
      out_of_budget = true;
      break;
    }
    released.push_back(i);
    if (!take_out(i, p) && known_unfit)
      continue;
    fits = index_.find_for(p, fit_);
    known_unfit = !fits;
  }
  if (!fits) {
    for (auto i : released)
      spare_step(i, true);
    drop_noted();
    // A failure for an allocation that avoids agents says nothing of the
    // others of its size.
    if (!out_of_budget && p.avoid_agents.empty())
      failed_sizes_.insert(p.slots);
    return false;
  }
  // Spare every victim the fit does not need, most urgent first: each
  // costs a step. Restoring a victim with no part in the index changes
  // nothing there, so it is spared as it comes; only the others are
  // visited, in the same order. kept_fit_ is a fit in the index's current
  // state throughout.
  budget_ -= static_cast<long long>(released.size());
  auto& spare = in_index_candidates_;
  std::sort(spare.begin(), spare.end(), std::greater<>());
  spare.erase(std::unique(spare.begin(), spare.end()), spare.end());
  kept_fit_ = fit_;
  auto& needed = needed_;
  needed.clear();
  for (auto it = spare.begin(); it != spare.end(); ++it) {
    const auto& c = candidates_[*it];
    spare_step(*it, true);
    if (!touches(c, kept_fit_))
      continue;
    if (index_.find_for(p, fit_)) {
      kept_fit_ = fit_;
      continue;
    }
    spare_step(*it, false);
    needed.push_back(*it);
  }
  // A needed victim's noted parts (on agents the fit does not use) were
  // never in the index: dropping them leaves those slots busy, as they stay
  // until the victim stops.
  drop_noted();
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
    if (!c.preempting)
      preemptions.push_back(c.run->id);
  }
  return true;
}

} // namespace det::policy::detail
