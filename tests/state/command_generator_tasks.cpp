// The command generator's tasks (messages/events_tasks.hpp): launched,
// placed on free slots of a schedulable agent of their pool, running,
// ready, asked to stop (or, a generic task, to pause), exited for every
// reason, unpaused, reprioritised, forgotten.

#include "command_generator.hpp"

#include "state/queries.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace det::state::test {

std::optional<domain_event> command_generator::tasks(const cluster_state& s) {
  auto holding =
      where(s.tasks, [](const task_info& t) { return holds_allocation(t); });
  switch (below(8)) {
  case 0:
  case 1: {
    std::vector<std::string> pools;
    for (const auto& [name, p] : s.pools)
      pools.push_back(name);
    char id[40];
    std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012llx",
                  static_cast<unsigned long long>(next_task_++));
    task_launched ev;
    ev.task_id = id;
    ev.task_type = pick(task_types());
    ev.owner = "u1";
    ev.description = "Task " + std::to_string(next_task_);
    ev.config = {{"description", ev.description}};
    ev.pool = pick(pools);
    ev.slots =
        ev.task_type == "TENSORBOARD" ? 0 : static_cast<int32_t>(below(3));
    ev.priority = static_cast<int32_t>(1 + below(99));
    ev.at_us = tick();
    // Some generic tasks are children of another generic task.
    if (ev.task_type == "GENERIC") {
      auto parents = where(
          s.tasks, [](const task_info& t) { return t.task_type == "GENERIC"; });
      if (!parents.empty() && chance(40)) {
        ev.parent_id = pick(parents)->id;
        ev.pauses_with_parent = chance(50);
      }
      ev.no_pause = chance(20);
    }
    return ev;
  }
  case 2: {
    auto queued = where(s.tasks, [](const task_info& t) {
      return t.state == task_state::queued;
    });
    if (queued.empty())
      return std::nullopt;
    const auto& t = *pick(queued);
    std::vector<std::pair<std::string, std::vector<int64_t>>> fits;
    for (const auto* a : agents_of_pool(s, t.pool)) {
      auto free = free_slot_ids(*a);
      if (schedulable(*a) && static_cast<int64_t>(free.size()) >= t.slots)
        fits.emplace_back(a->id, std::move(free));
    }
    if (fits.empty())
      return std::nullopt;
    auto& [agent, free] = pick(fits);
    std::shuffle(free.begin(), free.end(), rng_);
    free.resize(static_cast<size_t>(t.slots));
    std::sort(free.begin(), free.end());
    return task_placed{t.id, next_allocation_id(t), agent, free, tick()};
  }
  case 3: {
    auto xs = where(s.tasks, [](const task_info& t) {
      return t.state == task_state::starting;
    });
    if (xs.empty())
      return std::nullopt;
    const auto& t = *pick(xs);
    return task_running{t.id, t.allocation_id, tick()};
  }
  case 4: {
    if (holding.empty())
      return std::nullopt;
    const auto& t = *pick(holding);
    // Most tasks report ready before they are asked to stop (every run
    // must show task_ready: the coverage test counts on it).
    if (!t.ready && (t.state == task_state::terminating || chance(80)))
      return chance(50)
                 ? task_ready{t.id, t.allocation_id, tick(), "", 0}
                 : task_ready{t.id, t.allocation_id, tick(), "127.0.0.1", 2900};
    if (t.state == task_state::terminating)
      return std::nullopt;
    task_kill_requested ev{t.id, t.allocation_id, "u1", "killed by user",
                           tick()};
    ev.pause = t.task_type == "GENERIC" && chance(50);
    return ev;
  }
  case 5: {
    auto xs = where(s.tasks, [](const task_info& t) {
      return t.state != task_state::terminated;
    });
    if (xs.empty())
      return std::nullopt;
    const auto& t = *pick(xs);
    if (t.state == task_state::queued)
      return task_exited{t.id,
                         "",
                         t.task_type == "GENERIC" && chance(30) ? "paused"
                                                                : "killed",
                         0,
                         "ended while queued",
                         tick()};
    std::vector<std::string> reasons{"completed", "failed", "killed",
                                     "agent_lost"};
    auto reason = t.pausing ? std::string{"paused"} : pick(reasons);
    auto code = reason == "completed" ? 0 : 1 + static_cast<int32_t>(below(9));
    return task_exited{t.id, t.allocation_id, reason,
                       code, "generated",     tick()};
  }
  case 6: {
    auto paused =
        where(s.tasks, [](const task_info& t) { return is_paused(t); });
    if (!paused.empty() && chance(50))
      return task_unpaused{pick(paused)->id, "u1", tick()};
    auto xs = where(s.tasks, [](const task_info& t) {
      return t.state != task_state::terminated;
    });
    if (xs.empty())
      return std::nullopt;
    return task_priority_set{pick(xs)->id, static_cast<int32_t>(1 + below(99)),
                             "u1", tick()};
  }
  default: {
    auto xs = where(s.tasks, [](const task_info& t) {
      return t.state == task_state::terminated && !is_paused(t);
    });
    if (xs.empty())
      return std::nullopt;
    return task_forgotten{pick(xs)->id, tick()};
  }
  }
}

} // namespace det::state::test
