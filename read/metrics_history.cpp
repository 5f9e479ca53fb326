#include "read/metrics_history.hpp"

#include <algorithm>

namespace det::read {

std::optional<metric_report> report_of(int64_t position,
                                       const domain_event& ev) {
  auto m = std::get_if<trial_metrics_reported>(&ev);
  if (m == nullptr)
    return std::nullopt;
  metric_report r;
  r.position = position;
  r.trial_id = m->trial_id;
  r.group = m->kind;
  r.steps = m->steps_completed;
  r.allocation_id = m->allocation_id;
  r.at_us = m->at_us;
  r.metrics = m->metrics.dump();
  return r;
}

const metric_report& report_list::operator[](size_t i) const {
  auto b = i / block_size;
  if (b < blocks_.size())
    return (*blocks_[b])[i % block_size];
  return tail_[i - blocks_.size() * block_size];
}

std::vector<bool> rolled_back(const report_list& l) {
  std::vector<bool> out(l.size(), false);
  // Backwards: per group, the fewest steps of any later allocation's
  // report, and of the allocation being walked (folded in when it
  // changes; a trial's allocations follow each other in the log).
  std::map<std::string, int64_t> later;
  std::map<std::string, int64_t> current;
  std::string walking;
  for (size_t k = l.size(); k-- > 0;) {
    const auto& r = l[k];
    if (r.allocation_id != walking) {
      for (const auto& [group, steps] : current) {
        auto [it, fresh] = later.emplace(group, steps);
        if (!fresh)
          it->second = std::min(it->second, steps);
      }
      current.clear();
      walking = r.allocation_id;
    }
    if (auto it = later.find(r.group);
        it != later.end() && r.steps >= it->second)
      out[k] = true;
    auto [it, fresh] = current.emplace(r.group, r.steps);
    if (!fresh)
      it->second = std::min(it->second, r.steps);
  }
  return out;
}

std::vector<size_t> sample_reports(const report_list& l,
                                   const std::string& group, int64_t min_steps,
                                   int64_t max_steps, size_t max_points) {
  std::vector<size_t> match;
  auto hidden = rolled_back(l);
  for (size_t i = 0; i < l.size(); ++i) {
    const auto& r = l[i];
    if (r.group == group && r.steps >= min_steps && r.steps <= max_steps
        && !hidden[i])
      match.push_back(i);
  }
  if (match.size() <= max_points)
    return match;
  std::vector<size_t> out;
  if (max_points == 0)
    return out;
  if (max_points == 1)
    return {match.back()};
  out.reserve(max_points);
  // Point k of max_points at k * (n - 1) / (max_points - 1): 0 and n - 1
  // included, strictly increasing since n > max_points.
  auto n = match.size();
  for (size_t k = 0; k < max_points; ++k)
    out.push_back(match[k * (n - 1) / (max_points - 1)]);
  return out;
}

metrics_history::metrics_history(size_t max_reports)
    : max_reports_(max_reports) {}

void metrics_history::append_locked(trial_entry& e, metric_report r) {
  e.last_position = r.position;
  e.tail.push_back(std::move(r));
  if (e.tail.size() == report_list::block_size) {
    e.blocks.push_back(
        std::make_shared<const std::vector<metric_report>>(std::move(e.tail)));
    e.tail.clear();
  }
  ++e.size;
  ++held_;
}

void metrics_history::evict_locked(int64_t keep) {
  while (held_ > max_reports_ && !lru_.empty()) {
    auto id = lru_.back();
    if (id == keep) {
      if (lru_.size() == 1)
        return;
      // The trial just used stays; the one before it goes.
      lru_.splice(lru_.begin(), lru_, std::prev(lru_.end()));
      continue;
    }
    lru_.pop_back();
    auto i = trials_.find(id);
    if (i != trials_.end()) {
      held_ -= i->second.size;
      trials_.erase(i);
    }
  }
}

void metrics_history::observe(const std::vector<domain_event>& events,
                              int64_t last_position) {
  auto position = last_position - static_cast<int64_t>(events.size());
  std::lock_guard<std::mutex> guard{mu_};
  for (const auto& ev : events) {
    ++position;
    if (auto c = std::get_if<trial_created>(&ev)) {
      // A trial born now has no history to read: held, empty, from here.
      auto [i, fresh] = trials_.try_emplace(c->trial_id);
      if (fresh) {
        i->second.loaded = true;
        i->second.last_position = position;
        lru_.push_front(c->trial_id);
        i->second.lru = lru_.begin();
      }
      continue;
    }
    auto m = std::get_if<trial_metrics_reported>(&ev);
    if (m == nullptr)
      continue;
    auto i = trials_.find(m->trial_id);
    if (i == trials_.end())
      continue; // not held: a load will read it from the log
    auto& e = i->second;
    auto r = report_of(position, ev);
    if (!e.loaded)
      e.pending.push_back(std::move(*r));
    else if (position > e.last_position)
      append_locked(e, std::move(*r));
  }
  evict_locked(-1);
}

caf::expected<report_list> metrics_history::reports(int64_t trial_id,
                                                    const loader& load) {
  auto snapshot = [](const trial_entry& e) {
    report_list out;
    out.blocks_ = e.blocks;
    out.tail_ = e.tail;
    out.size_ = e.size;
    return out;
  };
  {
    std::lock_guard<std::mutex> guard{mu_};
    auto [i, fresh] = trials_.try_emplace(trial_id);
    if (!fresh && i->second.loaded) {
      lru_.splice(lru_.begin(), lru_, i->second.lru);
      return snapshot(i->second);
    }
  }
  auto got = load(trial_id);
  std::lock_guard<std::mutex> guard{mu_};
  auto i = trials_.find(trial_id);
  if (i == trials_.end()) // cannot happen: only loaded trials are evicted
    i = trials_.try_emplace(trial_id).first;
  auto& e = i->second;
  if (e.loaded) { // another caller's load finished first
    lru_.splice(lru_.begin(), lru_, e.lru);
    return snapshot(e);
  }
  if (!got) {
    trials_.erase(i);
    return got.error();
  }
  // The load and what arrived meanwhile, by position, each once.
  auto all = std::move(*got);
  all.insert(all.end(), std::make_move_iterator(e.pending.begin()),
             std::make_move_iterator(e.pending.end()));
  e.pending.clear();
  std::stable_sort(all.begin(), all.end(),
                   [](const metric_report& a, const metric_report& b) {
                     return a.position < b.position;
                   });
  for (auto& r : all)
    if (e.size == 0 || r.position > e.last_position)
      append_locked(e, std::move(r));
  e.loaded = true;
  lru_.push_front(trial_id);
  e.lru = lru_.begin();
  evict_locked(trial_id);
  return snapshot(e);
}

size_t metrics_history::held() const {
  std::lock_guard<std::mutex> guard{mu_};
  return held_;
}

} // namespace det::read
