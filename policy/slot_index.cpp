#include "policy/slot_index.hpp"

#include <algorithm>

namespace det::policy {

slot_index::slot_index(const std::vector<agent_view>& agents,
                       fitting_policy fitting)
    : agents_(&agents), fitting_(fitting) {
  entries_.resize(agents.size());
  for (const auto& a : agents)
    if (a.enabled && !a.draining && a.total_slots > max_bucket_)
      max_bucket_ = a.total_slots;
  bucket_.resize(static_cast<size_t>(max_bucket_) + 1);
  idle_.resize(static_cast<size_t>(max_bucket_) + 1);
  nonempty_.assign(static_cast<size_t>(max_bucket_) / 64 + 1, 0);
  std::vector<bool> seen(static_cast<size_t>(max_bucket_) + 1, false);
  // Link in reverse so that, among equals, the agent listed first is taken
  // first (buckets pop from the back).
  for (size_t i = agents.size(); i-- > 0;) {
    const auto& a = agents[i];
    auto& e = entries_[i];
    e.total = a.total_slots;
    e.free = a.free_slots;
    // Tolerate a sloppy caller: out-of-range or repeated indices are dropped
    // so that free.size() never exceeds total.
    if (!std::is_sorted(e.free.begin(), e.free.end()))
      std::sort(e.free.begin(), e.free.end());
    e.free.erase(std::unique(e.free.begin(), e.free.end()), e.free.end());
    e.free.erase(std::remove_if(e.free.begin(), e.free.end(),
                                [&](int s) { return s < 0 || s >= e.total; }),
                 e.free.end());
    e.usable = a.enabled && !a.draining && a.total_slots > 0;
    if (e.usable) {
      link(static_cast<agent_ref>(i));
      if (!seen[static_cast<size_t>(e.total)]) {
        seen[static_cast<size_t>(e.total)] = true;
        sizes_desc_.push_back(e.total);
      }
    }
  }
  std::sort(sizes_desc_.begin(), sizes_desc_.end(), std::greater<>{});
}

void slot_index::link(agent_ref a) {
  auto& e = entries_[a];
  auto c = e.free.size();
  e.pos = static_cast<uint32_t>(bucket_[c].size());
  bucket_[c].push_back(a);
  nonempty_[c / 64] |= uint64_t{1} << (c % 64);
  free_total_ += static_cast<int>(c);
  if (static_cast<int>(c) == e.total) {
    e.idle_pos = static_cast<uint32_t>(idle_[c].size());
    idle_[c].push_back(a);
  }
}

void slot_index::unlink(agent_ref a) {
  auto& e = entries_[a];
  auto c = e.free.size();
  auto& b = bucket_[c];
  b[e.pos] = b.back();
  entries_[b[e.pos]].pos = e.pos;
  b.pop_back();
  if (b.empty())
    nonempty_[c / 64] &= ~(uint64_t{1} << (c % 64));
  free_total_ -= static_cast<int>(c);
  if (static_cast<int>(c) == e.total) {
    auto& idle = idle_[c];
    idle[e.idle_pos] = idle.back();
    entries_[idle[e.idle_pos]].idle_pos = e.idle_pos;
    idle.pop_back();
  }
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
    out.push_back(part{bucket_[static_cast<size_t>(c)].back(), slots});
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
    for (size_t i = 0; i < need; ++i)
      out.push_back(part{idle[idle.size() - 1 - i], s});
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
    unlink(p.agent);
    auto n = static_cast<std::ptrdiff_t>(p.count);
    result.push_back(
        agent_slots{(*agents_)[p.agent].id,
                    std::vector<int>(e.free.begin(), e.free.begin() + n)});
    e.free.erase(e.free.begin(), e.free.begin() + n);
    if (e.usable)
      link(p.agent);
  }
  return result;
}

void slot_index::take_exact(agent_ref agent, const std::vector<int>& slots) {
  auto& e = entries_[agent];
  if (e.usable)
    unlink(agent);
  for (int s : slots) {
    auto it = std::lower_bound(e.free.begin(), e.free.end(), s);
    if (it != e.free.end() && *it == s)
      e.free.erase(it);
  }
  if (e.usable)
    link(agent);
}

void slot_index::release(agent_ref agent, const std::vector<int>& slots) {
  auto& e = entries_[agent];
  if (e.usable)
    unlink(agent);
  for (int s : slots) {
    auto it = std::lower_bound(e.free.begin(), e.free.end(), s);
    if (s >= 0 && s < e.total && (it == e.free.end() || *it != s))
      e.free.insert(it, s);
  }
  if (e.usable)
    link(agent);
}

slot_index::agent_ref slot_index::lookup(const std::string& id) {
  if (by_id_.empty()) {
    by_id_.reserve(agents_->size());
    for (size_t i = 0; i < agents_->size(); ++i)
      by_id_.emplace((*agents_)[i].id, static_cast<agent_ref>(i));
  }
  auto it = by_id_.find(id);
  return it == by_id_.end() ? npos : it->second;
}

} // namespace det::policy
