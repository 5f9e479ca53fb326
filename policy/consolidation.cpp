#include "policy/consolidation.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <tuple>
#include <unordered_map>

namespace det::policy {

namespace {

struct agent_state {
  const consolidation_agent* view = nullptr;
  std::vector<int> free; // ascending
  std::vector<const consolidation_run*> runs;
  bool movable = true; // every run here may move as a whole
  bool emptied = false;
  bool received = false;
  int used_at_start = 0;
  int held_slots = 0; // slots of `runs`: the agent empties if they move

  [[nodiscard]] const std::string& id() const { return view->agent.id; }
  [[nodiscard]] int total() const { return view->agent.total_slots; }
  [[nodiscard]] int used() const {
    return total() - static_cast<int>(free.size());
  }
  [[nodiscard]] bool schedulable() const {
    return view->agent.enabled && !view->agent.draining;
  }
};

int run_slots(const consolidation_run& r) {
  int n = 0;
  for (const auto& part : r.run.resources)
    n += static_cast<int>(part.slots.size());
  return n;
}

struct tentative {
  size_t run = 0; // index into the candidate's runs
  size_t target = 0;
  std::vector<int> slots;
};

// Best fit: the busy, staying, schedulable agent other than `from` left
// with the fewest free slots; ties by id. Returns agents.size() if none.
size_t best_target(const std::vector<agent_state>& agents, size_t from,
                   int need) {
  size_t best = agents.size();
  for (size_t i = 0; i < agents.size(); ++i) {
    const auto& a = agents[i];
    if (i == from || a.emptied || !a.schedulable() || a.used() <= 0
        || static_cast<int>(a.free.size()) < need)
      continue;
    if (best == agents.size() || a.free.size() < agents[best].free.size()
        || (a.free.size() == agents[best].free.size()
            && a.id() < agents[best].id()))
      best = i;
  }
  return best;
}

} // namespace

bool is_underused(int total_slots, int free_slots,
                  const consolidation_config& config) {
  int used = total_slots - free_slots;
  return total_slots > 0 && used > 0
         && static_cast<double>(used)
                <= config.max_used_fraction * static_cast<double>(total_slots);
}

consolidation_plan plan_consolidation(const consolidation_input& in,
                                      const consolidation_config& config) {
  consolidation_plan plan;
  if (!in.pending.empty() || config.max_moves_per_pass <= 0
      || config.slots_per_instance <= 0)
    return plan;

  std::vector<agent_state> agents(in.agents.size());
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < in.agents.size(); ++i) {
    agents[i].view = &in.agents[i];
    agents[i].free = in.agents[i].agent.free_slots;
    std::sort(agents[i].free.begin(), agents[i].free.end());
    agents[i].used_at_start = agents[i].used();
    index.emplace(in.agents[i].agent.id, i);
  }
  for (const auto& r : in.running) {
    bool whole =
        r.run.resources.size() == 1 && r.run.preemptible && !r.run.preempting;
    for (const auto& part : r.run.resources) {
      auto it = index.find(part.agent_id);
      if (it == index.end())
        continue;
      auto& a = agents[it->second];
      if (whole) {
        a.runs.push_back(&r);
        a.held_slots += static_cast<int>(part.slots.size());
      } else {
        a.movable = false;
      }
    }
  }

  // Candidates: fewest slots in use first, then under-used longest.
  std::vector<size_t> candidates;
  for (size_t i = 0; i < agents.size(); ++i) {
    const auto& a = agents[i];
    const auto& since = a.view->underused_since;
    if (a.schedulable() && a.movable && !a.runs.empty()
        && a.held_slots == a.used_at_start && since
        && in.now - *since >= config.consolidate_after
        && is_underused(a.total(), static_cast<int>(a.free.size()), config))
      candidates.push_back(i);
  }
  std::sort(candidates.begin(), candidates.end(), [&](size_t x, size_t y) {
    const auto& a = agents[x];
    const auto& b = agents[y];
    return std::tie(a.used_at_start, *a.view->underused_since, a.id())
           < std::tie(b.used_at_start, *b.view->underused_since, b.id());
  });

  int staying = static_cast<int>(agents.size());
  const double move_s = std::chrono::duration<double>(config.move_cost).count();
  for (size_t c : candidates) {
    auto& from = agents[c];
    int budget =
        config.max_moves_per_pass - static_cast<int>(plan.moves.size());
    if (budget <= 0 || staying - 1 < config.min_instances)
      break;
    if (from.received || static_cast<int>(from.runs.size()) > budget)
      continue;

    // Worth it: instance time saved against the moves' cost.
    timestamp oldest = in.now;
    int moved_slots = 0;
    for (const auto* r : from.runs) {
      oldest = std::min(oldest, r->started);
      moved_slots += run_slots(*r);
    }
    double saved_s = std::chrono::duration<double>(in.now - oldest).count();
    double cost_s =
        move_s
        + move_s * moved_slots / static_cast<double>(config.slots_per_instance);
    if (saved_s <= cost_s)
      continue;

    // Fit every allocation, largest first, onto the other agents.
    std::vector<size_t> order(from.runs.size());
    for (size_t k = 0; k < order.size(); ++k)
      order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      int sx = run_slots(*from.runs[x]);
      int sy = run_slots(*from.runs[y]);
      return sx != sy ? sx > sy : from.runs[x]->run.id < from.runs[y]->run.id;
    });
    std::vector<tentative> fits;
    bool all_fit = true;
    for (size_t k : order) {
      int need = run_slots(*from.runs[k]);
      size_t t = best_target(agents, c, need);
      if (t == agents.size()) {
        all_fit = false;
        break;
      }
      auto& to = agents[t];
      tentative f{k, t, {}};
      f.slots.assign(to.free.begin(), to.free.begin() + need);
      to.free.erase(to.free.begin(), to.free.begin() + need);
      fits.push_back(std::move(f));
    }
    if (!all_fit) {
      for (auto it = fits.rbegin(); it != fits.rend(); ++it) {
        auto& to = agents[it->target].free;
        to.insert(to.end(), it->slots.begin(), it->slots.end());
        std::sort(to.begin(), to.end());
      }
      continue;
    }
    for (auto& f : fits) {
      agents[f.target].received = true;
      consolidation_move m;
      m.allocation_id = from.runs[f.run]->run.id;
      m.from_agent = from.id();
      m.to.push_back({agents[f.target].id(), std::move(f.slots)});
      plan.moves.push_back(std::move(m));
    }
    from.emptied = true;
    --staying;
    plan.emptied_agents.push_back(from.id());
  }
  assert(static_cast<int>(plan.moves.size()) <= config.max_moves_per_pass);
  return plan;
}

} // namespace det::policy
