#include "policy/slot_index.hpp"

#include <algorithm>

namespace det::policy {

void slot_index::ref_set::insert(agent_ref a) {
  size_t w = a / 64;
  if (w >= words_.size()) {
    words_.resize(w + 1, 0);
    summary_.resize(w / 64 + 1, 0);
  }
  uint64_t bit = uint64_t{1} << (a % 64);
  if ((words_[w] & bit) != 0)
    return;
  words_[w] |= bit;
  summary_[w / 64] |= uint64_t{1} << (w % 64);
  ++count_;
}

void slot_index::ref_set::erase(agent_ref a) {
  size_t w = a / 64;
  if (w >= words_.size())
    return;
  uint64_t bit = uint64_t{1} << (a % 64);
  if ((words_[w] & bit) == 0)
    return;
  words_[w] &= ~bit;
  if (words_[w] == 0)
    summary_[w / 64] &= ~(uint64_t{1} << (w % 64));
  --count_;
}

slot_index::agent_ref slot_index::ref_set::first_from(agent_ref from) const {
  size_t w = from / 64;
  if (w >= words_.size())
    return npos;
  uint64_t bits = words_[w] & (~uint64_t{0} << (from % 64));
  if (bits != 0)
    return static_cast<agent_ref>(w * 64
                                  + static_cast<size_t>(__builtin_ctzll(bits)));
  size_t next = w + 1;
  for (size_t s = next / 64; s < summary_.size(); ++s) {
    uint64_t sb = summary_[s];
    if (s == next / 64)
      sb &= next % 64 == 0 ? ~uint64_t{0} : ~uint64_t{0} << (next % 64);
    if (sb == 0)
      continue;
    size_t word = s * 64 + static_cast<size_t>(__builtin_ctzll(sb));
    return static_cast<agent_ref>(
        word * 64 + static_cast<size_t>(__builtin_ctzll(words_[word])));
  }
  return npos;
}

slot_index::slot_index(const std::vector<agent_view>& agents,
                       fitting_policy fitting)
    : agents_(&agents), fitting_(fitting) {
  int largest = 0;
  for (const auto& a : agents)
    if (a.enabled && !a.draining && a.total_slots > largest)
      largest = a.total_slots;
  grow_buckets(largest);
  entries_.resize(agents.size());
  counts_.resize(agents.size());
  for (size_t i = 0; i < agents.size(); ++i)
    load(static_cast<agent_ref>(i));
}

void slot_index::grow_buckets(int total) {
  if (total <= max_bucket_ && !bucket_.empty())
    return;
  max_bucket_ = std::max(max_bucket_, total);
  auto n = static_cast<size_t>(max_bucket_) + 1;
  bucket_.resize(n);
  idle_.resize(n);
  of_size_.resize(n, 0);
  nonempty_.resize(n / 64 + 1, 0);
}

void slot_index::count_size(int total, int delta) {
  auto& n = of_size_[static_cast<size_t>(total)];
  bool had = n > 0;
  n += delta;
  if (had == (n > 0))
    return;
  sizes_desc_.clear();
  for (size_t s = of_size_.size(); s-- > 1;)
    if (of_size_[s] > 0)
      sizes_desc_.push_back(static_cast<int>(s));
}

void slot_index::load(agent_ref a) {
  const auto& v = (*agents_)[a];
  auto& e = entries_[a];
  e.total = v.total_slots;
  e.free = v.free_slots;
  // Tolerate a sloppy caller: out-of-range or repeated indices are dropped
  // so that free.size() never exceeds total.
  if (!std::is_sorted(e.free.begin(), e.free.end()))
    std::sort(e.free.begin(), e.free.end());
  e.free.erase(std::unique(e.free.begin(), e.free.end()), e.free.end());
  e.free.erase(std::remove_if(e.free.begin(), e.free.end(),
                              [&](int s) { return s < 0 || s >= e.total; }),
               e.free.end());
  e.usable = v.enabled && !v.draining && v.total_slots > 0;
  recount(a);
  if (e.usable) {
    grow_buckets(e.total);
    link(a);
    count_size(e.total, 1);
  }
}

void slot_index::reload(agent_ref a, const std::string& old_id) {
  if (a >= entries_.size()) {
    entries_.resize(static_cast<size_t>(a) + 1);
    counts_.resize(static_cast<size_t>(a) + 1);
  } else {
    auto& e = entries_[a];
    if (e.usable) {
      unlink(a);
      count_size(e.total, -1);
    }
    e = agent_entry{};
  }
  if (by_id_built_) {
    if (auto it = by_id_.find(old_id); it != by_id_.end() && it->second == a)
      by_id_.erase(it);
    if (!(*agents_)[a].id.empty())
      by_id_.emplace((*agents_)[a].id, a);
  }
  load(a);
}

void slot_index::link(agent_ref a) {
  auto& e = entries_[a];
  auto c = e.free.size();
  bucket_[c].insert(a);
  nonempty_[c / 64] |= uint64_t{1} << (c % 64);
  free_total_ += static_cast<int>(c);
  if (static_cast<int>(c) == e.total)
    idle_[c].insert(a);
}

void slot_index::unlink(agent_ref a) {
  auto& e = entries_[a];
  auto c = e.free.size();
  auto& b = bucket_[c];
  b.erase(a);
  if (b.empty())
    nonempty_[c / 64] &= ~(uint64_t{1} << (c % 64));
  free_total_ -= static_cast<int>(c);
  if (static_cast<int>(c) == e.total)
    idle_[c].erase(a);
}

void slot_index::note_change(agent_ref a) {
  auto& e = entries_[a];
  if (!journal_on_ || e.journaled)
    return;
  e.journaled = true;
  journal_.push_back(saved_free{a, e.free});
}

void slot_index::start_journal() {
  journal_on_ = true;
}

void slot_index::rollback() {
  for (auto& s : journal_) {
    auto& e = entries_[s.agent];
    if (e.usable)
      unlink(s.agent);
    e.free = std::move(s.free);
    e.journaled = false;
    recount(s.agent);
    if (e.usable)
      link(s.agent);
  }
  journal_.clear();
  journal_on_ = false;
}

int slot_index::lowest_bucket_at_least(int slots) const {
  if (slots > max_bucket_)
    return -1;
  auto w = static_cast<size_t>(slots) / 64;
  uint64_t bits = nonempty_[w] & (~uint64_t{0} << (slots % 64));
  while (true) {
    if (bits != 0)
      return static_cast<int>(w * 64) + __builtin_ctzll(bits);
    if (++w == nonempty_.size())
      return -1;
    bits = nonempty_[w];
  }
}

int slot_index::highest_bucket_at_least(int slots) const {
  if (slots > max_bucket_)
    return -1;
  for (size_t w = nonempty_.size(); w-- > 0;) {
    if (nonempty_[w] == 0)
      continue;
    int c = static_cast<int>(w * 64) + 63 - __builtin_clzll(nonempty_[w]);
    return c >= slots ? c : -1;
  }
  return -1;
}

bool slot_index::find(int slots, std::vector<part>& out) const {
  out.clear();
  if (slots <= 0 || slots > free_total_)
    return false;
  int c = fitting_ == fitting_policy::best ? lowest_bucket_at_least(slots)
                                           : highest_bucket_at_least(slots);
  if (c >= 0) {
    out.push_back(part{bucket_[static_cast<size_t>(c)].first_from(0), slots});
    return true;
  }
  if (slots <= 1)
    return false;
  for (int s : sizes_desc_) {
    if (s >= slots || slots % s != 0)
      continue;
    const auto& idle = idle_[static_cast<size_t>(s)];
    auto need = static_cast<size_t>(slots / s);
    if (idle.size() < need)
      continue;
    agent_ref a = idle.first_from(0);
    for (size_t i = 0; i < need; ++i, a = idle.first_from(a + 1))
      out.push_back(part{a, s});
    return true;
  }
  return false;
}

bool slot_index::find_for(const pending_allocation& p, std::vector<part>& out) {
  if (p.avoid_agents.empty())
    return find(p.slots, out);
  // The avoided agents leave the buckets for this one search.
  std::vector<agent_ref> hidden;
  for (const auto& id : p.avoid_agents) {
    auto a = lookup(id);
    if (a == npos || !entries_[a].usable
        || std::find(hidden.begin(), hidden.end(), a) != hidden.end())
      continue;
    unlink(a);
    hidden.push_back(a);
  }
  bool found = find(p.slots, out);
  for (auto it = hidden.rbegin(); it != hidden.rend(); ++it)
    link(*it);
  return found;
}

std::vector<agent_slots> slot_index::take(const std::vector<part>& fit) {
  std::vector<agent_slots> result;
  result.reserve(fit.size());
  for (const auto& p : fit) {
    auto& e = entries_[p.agent];
    note_change(p.agent);
    unlink(p.agent);
    auto n = static_cast<std::ptrdiff_t>(p.count);
    result.push_back(
        agent_slots{(*agents_)[p.agent].id,
                    std::vector<int>(e.free.begin(), e.free.begin() + n)});
    e.free.erase(e.free.begin(), e.free.begin() + n);
    recount(p.agent);
    if (e.usable)
      link(p.agent);
  }
  return result;
}

void slot_index::take_exact(agent_ref agent, const std::vector<int>& slots) {
  auto& e = entries_[agent];
  note_change(agent);
  if (e.usable)
    unlink(agent);
  for (int s : slots) {
    auto it = std::lower_bound(e.free.begin(), e.free.end(), s);
    if (it != e.free.end() && *it == s)
      e.free.erase(it);
  }
  recount(agent);
  if (e.usable)
    link(agent);
}

void slot_index::release(agent_ref agent, const std::vector<int>& slots) {
  auto& e = entries_[agent];
  note_change(agent);
  if (e.usable)
    unlink(agent);
  for (int s : slots) {
    auto it = std::lower_bound(e.free.begin(), e.free.end(), s);
    if (s >= 0 && s < e.total && (it == e.free.end() || *it != s))
      e.free.insert(it, s);
  }
  recount(agent);
  if (e.usable)
    link(agent);
}

slot_index::agent_ref slot_index::lookup(const std::string& id) {
  if (!by_id_built_) {
    by_id_built_ = true;
    by_id_.reserve(agents_->size());
    for (size_t i = 0; i < agents_->size(); ++i)
      if (!(*agents_)[i].id.empty())
        by_id_.emplace((*agents_)[i].id, static_cast<agent_ref>(i));
  }
  auto it = by_id_.find(id);
  return it == by_id_.end() ? npos : it->second;
}

} // namespace det::policy
