#include "policy/incremental_scheduler.hpp"

#include "policy/capacity.hpp"
#include "policy/pool_scheduler.hpp"
#include "policy/preemption_planner.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace det::policy {

namespace {

long long slots_held_by(const running_allocation& r) {
  long long n = 0;
  for (const auto& res : r.resources)
    n += static_cast<long long>(res.slots.size());
  return n;
}

bool odd_entry(const pending_allocation& p) {
  return p.priority < 0 || p.priority > 255 || std::isnan(p.weight);
}

bool same_entry(const agent_view& a, const agent_view& b) {
  return a.id == b.id && a.total_slots == b.total_slots
         && a.free_slots == b.free_slots && a.enabled == b.enabled
         && a.draining == b.draining;
}

bool same_entry(const pending_allocation& a, const pending_allocation& b) {
  return a.id == b.id && a.experiment_id == b.experiment_id
         && a.slots == b.slots && a.priority == b.priority && a.order == b.order
         && a.weight == b.weight && a.avoid_agents == b.avoid_agents;
}

bool same_entry(const running_allocation& a, const running_allocation& b) {
  return a.id == b.id && a.experiment_id == b.experiment_id
         && a.priority == b.priority && a.order == b.order
         && a.weight == b.weight && a.preemptible == b.preemptible
         && a.preempting == b.preempting && a.resources == b.resources;
}

/// Undoes a pass's tentative takes however the pass ends.
struct journal_scope {
  slot_index& index;
  explicit journal_scope(slot_index& i) : index(i) { index.start_journal(); }
  ~journal_scope() { index.rollback(); }
  journal_scope(const journal_scope&) = delete;
  journal_scope& operator=(const journal_scope&) = delete;
};

} // namespace

void incremental_scheduler::weights::remove(double w) {
  auto it = counts.find(w);
  if (it != counts.end() && --it->second <= 0)
    counts.erase(it);
}

double incremental_scheduler::weights::max() const {
  return counts.empty() ? 0.0 : counts.rbegin()->first;
}

incremental_scheduler::incremental_scheduler(scheduler_config config)
    : config_(config), agents_(std::make_unique<std::vector<agent_view>>()),
      index_(std::make_unique<slot_index>(*agents_, config.fitting)) {
  (void)index_->lookup(""); // builds the id map now; reload keeps it
}

incremental_scheduler::~incremental_scheduler() = default;

void incremental_scheduler::set_capacity(const pool_capacity& capacity) {
  capacity_ = capacity;
}

void incremental_scheduler::upsert_agent(const agent_view& agent) {
  if (agent.id.empty())
    return; // nothing could name it
  auto uncount = [&](const agent_view& a) {
    if (a.total_slots > 0) {
      auto it = agents_by_size_.find(a.total_slots);
      if (it != agents_by_size_.end() && --it->second <= 0)
        agents_by_size_.erase(it);
    }
    if (a.enabled && !a.draining)
      pool_slots_ -= a.total_slots;
  };
  slot_index::agent_ref pos;
  std::string old_id;
  if (auto it = agent_at_.find(agent.id); it != agent_at_.end()) {
    pos = it->second;
    uncount((*agents_)[pos]);
    old_id = agent.id;
  } else {
    if (!holes_.empty()) {
      pos = holes_.back();
      holes_.pop_back();
    } else {
      pos = static_cast<slot_index::agent_ref>(agents_->size());
      agents_->emplace_back();
    }
    agent_at_.emplace(agent.id, pos);
    ++agents_generation_;
    if (auto c = candidate_slots_on_.find(agent.id);
        c != candidate_slots_on_.end())
      candidate_slots_ += c->second;
  }
  (*agents_)[pos] = agent;
  if (agent.total_slots > 0)
    ++agents_by_size_[agent.total_slots];
  if (agent.enabled && !agent.draining)
    pool_slots_ += agent.total_slots;
  index_->reload(pos, old_id);
}

void incremental_scheduler::remove_agent(const std::string& id) {
  auto it = agent_at_.find(id);
  if (it == agent_at_.end())
    return;
  auto pos = it->second;
  const auto& a = (*agents_)[pos];
  if (a.total_slots > 0) {
    auto s = agents_by_size_.find(a.total_slots);
    if (s != agents_by_size_.end() && --s->second <= 0)
      agents_by_size_.erase(s);
  }
  if (a.enabled && !a.draining)
    pool_slots_ -= a.total_slots;
  if (auto c = candidate_slots_on_.find(id); c != candidate_slots_on_.end())
    candidate_slots_ -= c->second;
  agent_view hole;
  hole.enabled = false;
  (*agents_)[pos] = hole;
  agent_at_.erase(it);
  ++agents_generation_;
  index_->reload(pos, id);
  holes_.push_back(pos);
}

void incremental_scheduler::count_order(uint64_t order, int delta) {
  auto& c = orders_[order];
  if (delta > 0) {
    if (c >= 1)
      ++repeated_orders_;
    ++c;
    return;
  }
  --c;
  if (c >= 1)
    --repeated_orders_;
  if (c <= 0)
    orders_.erase(order);
}

void incremental_scheduler::count_candidate(const running_allocation& r,
                                            int delta) {
  for (const auto& res : r.resources) {
    auto n = static_cast<long long>(res.slots.size()) * delta;
    auto& on = candidate_slots_on_[res.agent_id];
    on += n;
    if (agent_at_.count(res.agent_id) != 0)
      candidate_slots_ += n;
    if (on == 0)
      candidate_slots_on_.erase(res.agent_id);
  }
}

void incremental_scheduler::upsert_pending(const pending_allocation& p) {
  remove_pending(p.id);
  auto [it, added] = pending_.emplace(p.id, p);
  (void)added;
  const auto* q = &it->second;
  key k{q->order, q->id};
  all_pending_.emplace(k, q);
  pending_by_size_[q->slots].emplace(k, q);
  auto& lv = levels_[q->priority];
  (q->avoid_agents.empty() ? lv.by_size[q->slots] : lv.avoiding).emplace(k, q);
  ++lv.count;
  auto& g = groups_[q->experiment_id];
  g.by_size[q->slots].emplace(k, q);
  g.pending_weights[q->slots].add(q->weight);
  count_order(q->order, 1);
  if (odd_entry(*q))
    ++odd_priorities_;
}

void incremental_scheduler::remove_pending(const std::string& id) {
  auto it = pending_.find(id);
  if (it == pending_.end())
    return;
  const auto& q = it->second;
  key k{q.order, q.id};
  all_pending_.erase(k);
  auto erase_in = [&](std::map<int, queue<pending_allocation>>& m) {
    auto s = m.find(q.slots);
    if (s == m.end())
      return;
    s->second.erase(k);
    if (s->second.empty())
      m.erase(s);
  };
  erase_in(pending_by_size_);
  auto lv = levels_.find(q.priority);
  if (lv != levels_.end()) {
    if (q.avoid_agents.empty())
      erase_in(lv->second.by_size);
    else
      lv->second.avoiding.erase(k);
    if (--lv->second.count == 0)
      levels_.erase(lv);
  }
  auto g = groups_.find(q.experiment_id);
  if (g != groups_.end()) {
    erase_in(g->second.by_size);
    auto w = g->second.pending_weights.find(q.slots);
    if (w != g->second.pending_weights.end()) {
      w->second.remove(q.weight);
      if (w->second.counts.empty())
        g->second.pending_weights.erase(w);
    }
    if (g->second.by_size.empty() && g->second.running.empty())
      groups_.erase(g);
  }
  count_order(q.order, -1);
  if (odd_entry(q))
    --odd_priorities_;
  pending_.erase(it);
}

void incremental_scheduler::upsert_running(const running_allocation& r) {
  remove_running(r.id);
  auto [it, added] = running_.emplace(r.id, r);
  (void)added;
  const auto* q = &it->second;
  key k{q->order, q->id};
  all_running_.emplace(k, q);
  auto& g = groups_[q->experiment_id];
  g.running.emplace(k, q);
  g.running_weights.add(q->weight);
  auto n = slots_held_by(*q);
  if (q->preempting) {
    g.soon_free += n;
    preempting_.emplace(k, q);
  } else {
    g.active += n;
    if (q->preemptible) {
      regular_entry e{
          q, q->resources.size() == 1 ? &q->resources[0].slots : nullptr,
          q->resources.size() == 1
              ? static_cast<int>(q->resources[0].slots.size())
              : 0};
      // Looked up as it arrives, not by the first pass that walks it: a
      // pass after thousands of starts would otherwise pay a hash lookup of
      // an agent id for each (the slowest pass of the preemption bench).
      if (e.slots != nullptr) {
        e.agent = index_->lookup(q->resources[0].agent_id);
        e.generation = agents_generation_;
      }
      regular_.emplace(std::pair{q->priority, k}, e);
    }
  }
  if (q->preempting || q->preemptible)
    count_candidate(*q, 1);
  count_order(q->order, 1);
  if (std::isnan(q->weight))
    ++odd_priorities_;
}

void incremental_scheduler::remove_running(const std::string& id) {
  auto it = running_.find(id);
  if (it == running_.end())
    return;
  const auto& q = it->second;
  key k{q.order, q.id};
  all_running_.erase(k);
  auto n = slots_held_by(q);
  if (q.preempting) {
    preempting_.erase(k);
  } else if (q.preemptible) {
    regular_.erase(std::pair{q.priority, k});
  }
  if (q.preempting || q.preemptible)
    count_candidate(q, -1);
  auto g = groups_.find(q.experiment_id);
  if (g != groups_.end()) {
    g->second.running.erase(k);
    g->second.running_weights.remove(q.weight);
    (q.preempting ? g->second.soon_free : g->second.active) -= n;
    if (g->second.by_size.empty() && g->second.running.empty())
      groups_.erase(g);
  }
  count_order(q.order, -1);
  if (std::isnan(q.weight))
    --odd_priorities_;
  running_.erase(it);
}

void incremental_scheduler::sync(const pool_snapshot& snap) {
  set_capacity(snap.capacity);
  {
    std::unordered_map<std::string_view, const agent_view*> want;
    for (const auto& a : snap.agents)
      want.emplace(a.id, &a);
    std::vector<std::string> gone;
    for (const auto& [id, pos] : agent_at_)
      if (want.count(id) == 0)
        gone.push_back(id);
    for (const auto& id : gone)
      remove_agent(id);
    for (const auto& a : snap.agents) {
      auto it = agent_at_.find(a.id);
      if (it == agent_at_.end() || !same_entry((*agents_)[it->second], a))
        upsert_agent(a);
    }
  }
  auto sync_map = [&](const auto& list, auto& have, auto upsert, auto remove) {
    std::unordered_map<std::string_view, int> want;
    for (const auto& x : list)
      want.emplace(x.id, 0);
    std::vector<std::string> gone;
    for (const auto& [id, x] : have)
      if (want.count(id) == 0)
        gone.push_back(id);
    for (const auto& id : gone)
      (this->*remove)(id);
    for (const auto& x : list) {
      auto it = have.find(x.id);
      if (it == have.end() || !same_entry(it->second, x))
        (this->*upsert)(x);
    }
  };
  sync_map(snap.pending, pending_, &incremental_scheduler::upsert_pending,
           &incremental_scheduler::remove_pending);
  sync_map(snap.running, running_, &incremental_scheduler::upsert_running,
           &incremental_scheduler::remove_running);
}

void incremental_scheduler::apply(const pool_delta& delta) {
  if (delta.resync) {
    sync(delta.full);
    return;
  }
  set_capacity(delta.capacity);
  for (const auto& id : delta.running_gone)
    remove_running(id);
  for (const auto& id : delta.pending_gone)
    remove_pending(id);
  for (const auto& id : delta.agents_gone)
    remove_agent(id);
  for (const auto& a : delta.agents)
    upsert_agent(a);
  for (const auto& p : delta.pending)
    upsert_pending(p);
  for (const auto& r : delta.running)
    upsert_running(r);
}

bool same_view(const pool_snapshot& a, const pool_snapshot& b) {
  if (a.capacity.max_slots != b.capacity.max_slots
      || a.capacity.slots_per_instance != b.capacity.slots_per_instance
      || a.agents.size() != b.agents.size()
      || a.pending.size() != b.pending.size()
      || a.running.size() != b.running.size())
    return false;
  auto same_list = [](const auto& x, const auto& y) {
    using entry = typename std::decay_t<decltype(x)>::value_type;
    std::vector<const entry*> xs, ys;
    for (const auto& e : x)
      xs.push_back(&e);
    for (const auto& e : y)
      ys.push_back(&e);
    auto by_id = [](const entry* p, const entry* q) { return p->id < q->id; };
    std::sort(xs.begin(), xs.end(), by_id);
    std::sort(ys.begin(), ys.end(), by_id);
    for (size_t i = 0; i < xs.size(); ++i)
      if (!same_entry(*xs[i], *ys[i]))
        return false;
    return true;
  };
  return same_list(a.agents, b.agents) && same_list(a.pending, b.pending)
         && same_list(a.running, b.running);
}

bool same_decisions(const schedule_result& a, const schedule_result& b) {
  if (a.placements.size() != b.placements.size()
      || a.preemptions != b.preemptions
      || a.unschedulable.size() != b.unschedulable.size())
    return false;
  for (size_t i = 0; i < a.placements.size(); ++i)
    if (a.placements[i].allocation_id != b.placements[i].allocation_id
        || a.placements[i].resources != b.placements[i].resources)
      return false;
  for (size_t i = 0; i < a.unschedulable.size(); ++i)
    if (a.unschedulable[i].allocation_id != b.unschedulable[i].allocation_id
        || a.unschedulable[i].reason != b.unschedulable[i].reason)
      return false;
  return true;
}

std::string view_difference(const pool_snapshot& a, const pool_snapshot& b) {
  if (a.capacity.max_slots != b.capacity.max_slots
      || a.capacity.slots_per_instance != b.capacity.slots_per_instance)
    return "capacity";
  auto differ = [](const char* what, const auto& x, const auto& y) {
    using entry = typename std::decay_t<decltype(x)>::value_type;
    std::map<std::string_view, const entry*> xs, ys;
    for (const auto& e : x)
      xs.emplace(e.id, &e);
    for (const auto& e : y)
      ys.emplace(e.id, &e);
    for (const auto& [id, e] : xs) {
      auto o = ys.find(id);
      if (o == ys.end())
        return std::string{what} + " " + std::string{id} + " only in the first";
      if (!same_entry(*e, *o->second))
        return std::string{what} + " " + std::string{id} + " differs";
    }
    for (const auto& [id, e] : ys)
      if (xs.count(id) == 0)
        return std::string{what} + " " + std::string{id}
               + " only in the second";
    return std::string{};
  };
  for (auto d : {differ("agent", a.agents, b.agents),
                 differ("pending", a.pending, b.pending),
                 differ("running", a.running, b.running)})
    if (!d.empty())
      return d;
  return {};
}

pool_snapshot incremental_scheduler::snapshot() const {
  pool_snapshot s;
  s.capacity = capacity_;
  s.agents.reserve(agent_at_.size());
  for (const auto& a : *agents_)
    if (!a.id.empty())
      s.agents.push_back(a);
  s.pending.reserve(all_pending_.size());
  for (const auto& [k, p] : all_pending_)
    s.pending.push_back(*p);
  s.running.reserve(all_running_.size());
  for (const auto& [k, r] : all_running_)
    s.running.push_back(*r);
  return s;
}

bool incremental_scheduler::incremental() const {
  return repeated_orders_ == 0 && odd_priorities_ == 0;
}

schedule_result incremental_scheduler::pass() {
  if (!incremental())
    return schedule_pool(snapshot(), config_);
  journal_scope undo{*index_};
  return config_.policy == scheduling_policy::fair_share ? fair_share_pass()
                                                         : priority_pass();
}

void incremental_scheduler::unschedulable_in_order(
    const std::vector<const queue<pending_allocation>*>& queues,
    capacity_check& capacity, schedule_result& out) const {
  using iter = queue<pending_allocation>::const_iterator;
  std::vector<std::pair<iter, iter>> cs;
  for (const auto* q : queues)
    if (!q->empty())
      cs.emplace_back(q->begin(), q->end());
  while (true) {
    std::pair<iter, iter>* best = nullptr;
    for (auto& c : cs)
      if (c.first != c.second
          && (best == nullptr || c.first->first < best->first->first))
        best = &c;
    if (best == nullptr)
      return;
    const auto& p = *best->first->second;
    ++best->first;
    if (!capacity.can_ever_fit(p.slots))
      out.unschedulable.push_back(
          never_fits{p.id, *capacity.never_fits(p.slots)});
  }
}

schedule_result incremental_scheduler::priority_pass() {
  schedule_result out;
  capacity_check capacity{capacity_, agents_by_size_};
  std::unique_ptr<detail::preemption_planner> planner;
  std::vector<slot_index::part> fit;
  // Sizes whose next allocation would find no room and make none: the
  // free slots only shrink during a pass and the planner remembers its
  // failures, so every later allocation of that size (not avoiding agents)
  // would do nothing. Their queues are skipped from then on.
  std::vector<int> dead;
  auto is_dead = [&](int size) {
    return std::find(dead.begin(), dead.end(), size) != dead.end();
  };
  using iter = queue<pending_allocation>::const_iterator;
  struct cursor {
    iter it;
    iter end;
    bool avoiding;
  };
  std::vector<cursor> cs;
  bool blocked = false;
  bool failed = false;
  for (const auto& [priority, lv] : levels_) {
    blocked = blocked || (failed && !config_.preemption);
    failed = false;
    std::vector<const queue<pending_allocation>*> never;
    for (const auto& [size, q] : lv.by_size)
      if (!capacity.can_ever_fit(size))
        never.push_back(&q);
    never.push_back(&lv.avoiding);
    unschedulable_in_order(never, capacity, out);
    if (blocked)
      continue;
    cs.clear();
    for (const auto& [size, q] : lv.by_size)
      if (capacity.can_ever_fit(size) && !is_dead(size))
        cs.push_back(cursor{q.begin(), q.end(), false});
    if (!lv.avoiding.empty())
      cs.push_back(cursor{lv.avoiding.begin(), lv.avoiding.end(), true});
    while (true) {
      cursor* best = nullptr;
      for (auto& c : cs)
        if (c.it != c.end && (best == nullptr || c.it->first < best->it->first))
          best = &c;
      if (best == nullptr)
        break;
      const auto& p = *best->it->second;
      ++best->it;
      if (!capacity.can_ever_fit(p.slots))
        continue; // reported above
      if (index_->find_for(p, fit)) {
        out.placements.push_back(placement{p.id, index_->take(fit)});
        continue;
      }
      failed = true;
      bool room = false;
      if (config_.preemption && !running_.empty()) {
        if (!planner) {
          auto pre = preempting_.begin();
          auto reg = regular_.begin();
          planner = std::make_unique<detail::preemption_planner>(
              [this, pre, reg]() mutable {
                using item = detail::preemption_planner::source_item;
                if (pre != preempting_.end()) {
                  const auto* r = (pre++)->second;
                  return item{r, r->order, r->priority, true};
                }
                if (reg == regular_.end())
                  return item{};
                const auto& [k, e] = *reg++;
                item it{e.run, k.second.first, k.first, false};
                if (e.slots != nullptr) {
                  if (e.generation != agents_generation_) {
                    e.agent = index_->lookup(e.run->resources[0].agent_id);
                    e.generation = agents_generation_;
                  }
                  it.resolved = true;
                  it.agent = e.agent;
                  it.count = e.count;
                  it.slots = e.slots;
                }
                return it;
              },
              candidate_slots_, *index_, config_.preemption_budget,
              &planner_buffers_);
        }
        room = planner->make_room(p, out.preemptions);
      }
      if (!room && !best->avoiding) {
        dead.push_back(p.slots);
        best->it = best->end;
      }
    }
  }
  return out;
}

} // namespace det::policy
