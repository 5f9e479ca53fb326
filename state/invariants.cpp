// What must hold between the records of a cluster_state after every event.
// apply() keeps these by construction; this is the independent check the
// property tests, det-replay --verify and from_snapshot() run. Each broken
// invariant is one sentence naming the records involved.

#include "state/cluster_state.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"

#include <algorithm>
#include <set>

namespace det::state {

namespace {

struct checker {
  const cluster_state& s;
  std::vector<std::string> out;

  void fail(std::string why) { out.push_back(std::move(why)); }

  void counters() {
    int64_t total = 0;
    for (const auto& [type, n] : s.applied_by_type)
      total += n;
    if (total != s.position)
      fail("applied_by_type sums to " + std::to_string(total)
           + " but the position is " + std::to_string(s.position));
    auto started = s.applied_by_type.find("master_started");
    auto n = started == s.applied_by_type.end() ? 0 : started->second;
    if (n != s.masters_started)
      fail("masters_started is " + std::to_string(s.masters_started) + ", but "
           + std::to_string(n) + " master_started events were applied");
    if (s.cluster_id.empty() != (s.masters_started == 0))
      fail("cluster_id is set if and only if a master started");
  }

  void pools() {
    for (const auto& [name, p] : s.pools) {
      if (name != p.config.pool)
        fail("pool '" + name + "' is filed under another name");
      for (const auto& [seq, l] : p.launches)
        if (seq != l.seq || seq < 1 || seq > p.launches_requested
            || l.seen >= l.count)
          fail("launch " + std::to_string(seq) + " of pool '" + name
               + "' is not a consistent outstanding launch");
    }
    for (const auto& [id, r] : s.spot_requests)
      if (id != r.id || s.pools.count(r.pool) == 0)
        fail("spot request '" + id + "' has a wrong id or unknown pool");
  }

  void agents() {
    for (const auto& [id, a] : s.agents) {
      auto name = "agent '" + id + "'";
      if (id != a.id)
        fail(name + " is filed under another id");
      if (s.pools.count(a.pool) == 0)
        fail(name + " is in unknown pool '" + a.pool + "'");
      if (a.status == agent_status::connected
              ? a.reconnect_deadline_us != 0 || a.disconnected_at_us != 0
              : a.reconnect_deadline_us < a.disconnected_at_us)
        fail(name + " is " + to_string(a.status)
             + " but its reconnect deadline says otherwise");
      if (a.idle_since_us.has_value() != (used_slots(a) == 0))
        fail(name + " has idle_since if and only if no slot is used");
      if (a.slot_limit
          && (*a.slot_limit < 0
              || static_cast<size_t>(*a.slot_limit) >= a.slots.size()
              || a.slots.back().empty()))
        fail(name + " keeps slots past its slot limit that are free");
      for (size_t slot = 0; slot < a.slots.size(); ++slot)
        if (!a.slots[slot].empty())
          slot_user(a, static_cast<int64_t>(slot), a.slots[slot]);
      if (!a.instance_id.empty()) {
        auto i = s.instances.find(a.instance_id);
        if (i != s.instances.end() && i->second.agent_id != id)
          fail(name + " runs on instance '" + a.instance_id
               + "', which does not name it as its agent");
      }
    }
  }

  /// Slot `slot` of `a` is used by allocation `alloc`: that allocation's
  /// trial must list it.
  void slot_user(const agent_info& a, int64_t slot, const std::string& alloc) {
    auto where = "slot " + std::to_string(slot) + " of agent '" + a.id + "'";
    if (const auto* task = task_of_allocation(s, alloc)) {
      if (task->agent_id != a.id
          || std::find(task->agent_slots.begin(), task->agent_slots.end(), slot)
                 == task->agent_slots.end())
        fail(where + " is used by allocation '" + alloc + "' of task '"
             + task->id + "', which does not list it");
      return;
    }
    const auto* t = trial_of_allocation(s, alloc);
    if (t == nullptr || !t->allocation) {
      fail(where + " is used by allocation '" + alloc
           + "', which no trial holds");
      return;
    }
    for (const auto& as : t->allocation->assignments)
      if (as.agent_id == a.id)
        for (auto x : as.slots)
          if (x == slot)
            return;
    fail(where + " is used by allocation '" + alloc + "' of trial "
         + std::to_string(t->id) + ", which does not list it");
  }

  void instances() {
    for (const auto& [id, i] : s.instances) {
      auto name = "instance '" + id + "'";
      if (id != i.id)
        fail(name + " is filed under another id");
      auto p = s.pools.find(i.pool);
      if (p == s.pools.end()) {
        fail(name + " is in unknown pool '" + i.pool + "'");
        continue;
      }
      if (i.launch_seq < 0 || i.launch_seq > p->second.launches_requested)
        fail(name + " names launch " + std::to_string(i.launch_seq)
             + ", which was never requested");
      if (i.agent_id.empty())
        continue;
      auto a = s.agents.find(i.agent_id);
      if (a == s.agents.end() || a->second.instance_id != id
          || a->second.pool != i.pool)
        fail(name + " names agent '" + i.agent_id
             + "', which is not on it or not in its pool");
    }
  }

  void experiments() {
    for (const auto& [id, e] : s.experiments) {
      auto name = "experiment " + std::to_string(id);
      if (id != e.id)
        fail(name + " is filed under another id");
      if (s.pools.count(e.pool) == 0)
        fail(name + " is in unknown pool '" + e.pool + "'");
      std::set<int64_t> seen;
      for (auto tid : e.trial_ids) {
        auto t = s.trials.find(tid);
        if (!seen.insert(tid).second || t == s.trials.end()
            || t->second.experiment_id != id)
          fail(name + " lists trial " + std::to_string(tid)
               + " twice, or a trial that is not its own");
        else if (is_terminal(e.status) && !is_terminal(t->second.status)
                 && !(e.unmanaged && t->second.status == trial_status::pending))
          fail(name + " is " + to_string(e.status) + " but trial "
               + std::to_string(tid) + " is " + to_string(t->second.status));
      }
    }
  }

  void trials() {
    std::set<std::pair<std::string, int64_t>> used;
    for (const auto& [id, t] : s.trials) {
      auto name = "trial " + std::to_string(id);
      if (id != t.id)
        fail(name + " is filed under another id");
      auto e = s.experiments.find(t.experiment_id);
      if (e == s.experiments.end()) {
        fail(name + " belongs to unknown experiment "
             + std::to_string(t.experiment_id));
        continue;
      }
      const auto& ids = e->second.trial_ids;
      if (std::find(ids.begin(), ids.end(), id) == ids.end())
        fail(name + " is not listed by its experiment");
      if (t.restarts > e->second.max_restarts + 1
          || (t.restarts > e->second.max_restarts
              && (t.status == trial_status::pending
                  || holds_allocation(t.status))))
        fail(name + " has " + std::to_string(t.restarts)
             + " restarts, more than max_restarts allows for "
             + to_string(t.status));
      if (e->second.unmanaged) {
        // Run outside the cluster: never an allocation, never placed.
        if (t.allocation || t.status == trial_status::assigned
            || t.status == trial_status::checkpointing
            || t.status == trial_status::exited)
          fail(name + " of an unmanaged experiment is " + to_string(t.status)
               + (t.allocation ? " and holds an allocation" : ""));
        continue;
      }
      if (holds_allocation(t.status) != t.allocation.has_value()) {
        fail(name + " is " + to_string(t.status)
             + (t.allocation ? " but holds an allocation"
                             : " but holds no allocation"));
        continue;
      }
      if (t.allocation)
        allocation(t, e->second, used);
    }
  }

  void allocation(const trial_info& t, const experiment_info& e,
                  std::set<std::pair<std::string, int64_t>>& used) {
    const auto& alloc = *t.allocation;
    auto name =
        "allocation '" + alloc.id + "' of trial " + std::to_string(t.id);
    if (alloc.id != allocation_id_for(t.id, t.runs))
      fail(name + " is not named after run " + std::to_string(t.runs));
    auto idx = s.allocations.find(alloc.id);
    if (idx == s.allocations.end() || idx->second != t.id)
      fail(name + " is missing from the allocation index");
    int64_t total = 0;
    for (const auto& as : alloc.assignments) {
      auto a = s.agents.find(as.agent_id);
      if (a == s.agents.end()) {
        fail(name + " holds slots of unknown agent '" + as.agent_id + "'");
        continue;
      }
      if (a->second.pool != e.pool)
        fail(name + " holds slots of agent '" + as.agent_id + "' outside pool '"
             + e.pool + "'");
      for (auto slot : as.slots) {
        ++total;
        auto where =
            "slot " + std::to_string(slot) + " of agent '" + as.agent_id + "'";
        if (!used.emplace(as.agent_id, slot).second)
          fail(where + " is used twice");
        if (slot < 0 || slot >= static_cast<int64_t>(a->second.slots.size())
            || a->second.slots[static_cast<size_t>(slot)] != alloc.id)
          fail(name + " lists " + where
               + ", which the agent does not give to it");
      }
    }
    if (total != e.slots_per_trial)
      fail(name + " holds " + std::to_string(total) + " slots, not "
           + std::to_string(e.slots_per_trial));
  }

  void users() {
    for (const auto& [hash, name] : s.sessions)
      if (s.users.count(name) == 0)
        fail("a session belongs to unknown user '" + name + "'");
    for (const auto& [name, u] : s.users)
      if (u.username != name || u.id < 1
          || u.id > static_cast<int64_t>(s.users.size()))
        fail("user '" + name + "' is filed wrongly or has id "
             + std::to_string(u.id));
  }

  /// Every experiment in a project, every project in a workspace, each
  /// record filed under its own id, no id above the last given out.
  void records() {
    for (const auto& [id, e] : s.experiments)
      if (!find_project(s, e.project_id))
        fail("experiment " + std::to_string(id) + " is in unknown project "
             + std::to_string(e.project_id));
    for (const auto& [id, p] : s.projects)
      if (p.id != id || id > s.last_project_id
          || !find_workspace(s, p.workspace_id))
        fail("project " + std::to_string(id)
             + " is filed wrongly or in an unknown workspace");
    for (const auto& [id, w] : s.workspaces)
      if (w.id != id || id > s.last_workspace_id)
        fail("workspace " + std::to_string(id) + " is filed wrongly");
    for (const auto& [id, m] : s.models)
      if (m.id != id || id > s.last_model_id
          || !find_workspace(s, m.workspace_id))
        fail("model " + std::to_string(id)
             + " is filed wrongly or in an unknown workspace");
  }

  void tasks() {
    for (const auto& [id, t] : s.tasks) {
      auto name = "task '" + id + "'";
      if (t.id != id || s.pools.count(t.pool) == 0)
        fail(name + " is filed wrongly or in an unknown pool");
      if (holds_allocation(t)) {
        auto a = s.agents.find(t.agent_id);
        if (a == s.agents.end()) {
          fail(name + " runs on unknown agent '" + t.agent_id + "'");
          continue;
        }
        if (static_cast<int64_t>(t.agent_slots.size()) != t.slots)
          fail(name + " holds " + std::to_string(t.agent_slots.size())
               + " slots, not " + std::to_string(t.slots));
        for (auto slot : t.agent_slots)
          if (slot < 0 || slot >= static_cast<int64_t>(a->second.slots.size())
              || a->second.slots[static_cast<size_t>(slot)] != t.allocation_id)
            fail(name + " lists slot " + std::to_string(slot) + " of agent '"
                 + t.agent_id + "', which its allocation does not use");
      } else if (!t.agent_slots.empty()) {
        fail(name + " is " + to_string(t.state) + " but lists slots");
      }
      if (t.state == task_state::queued
              ? !t.allocation_id.empty()
              : t.state != task_state::terminated && t.allocation_id.empty())
        fail(name + " is " + to_string(t.state)
             + " but its allocation says otherwise");
    }
  }

  void allocation_index() {
    for (const auto& [alloc, tid] : s.allocations) {
      auto t = s.trials.find(tid);
      if (t == s.trials.end() || !t->second.allocation
          || t->second.allocation->id != alloc)
        fail("allocation index names '" + alloc + "' for trial "
             + std::to_string(tid) + ", which does not hold it");
    }
  }
};

} // namespace

std::vector<std::string> check_invariants(const cluster_state& s) {
  checker c{s, {}};
  c.counters();
  c.pools();
  c.agents();
  c.instances();
  c.experiments();
  c.trials();
  c.allocation_index();
  c.tasks();
  c.users();
  c.records();
  return std::move(c.out);
}

} // namespace det::state
