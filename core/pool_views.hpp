#pragma once

// What the scheduler of each pool sees, followed event by event: the core
// notes the stream of every event it applies, and a pool's next pass gets
// only the agents and trials those streams touched (policy::pool_delta for
// policy::incremental_scheduler) instead of a snapshot of the whole pool.
//
// trial/<id> touches that trial (and the agents its allocation held and
// holds; with a max_slots limit, every trial of its experiment, whose
// offer depends on what the others hold); experiment/<id> every trial of
// the experiment; agent/<id> that agent and the trials running on it (an
// agent_lost ends their allocations with no event of their own), and a
// resync when a task ran on it. Streams that cannot change a
// pool's view (user/, model/, template/, webhook/, workspace/, project/)
// are ignored; any other (cluster, pool/, instance/, task/, or one this
// file does not know) makes the next delta a resync: the whole snapshot.
// The first delta of a pool is a resync as well.

#include "policy/incremental_scheduler.hpp"
#include "state/cluster_state.hpp"
#include "state/model.hpp"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace det {

/// The scheduler's view of one agent, trial or experiment of the state.
policy::agent_view agent_view_of(const state::agent_info& a);
policy::pending_allocation pending_view_of(const state::trial_info& t,
                                           const state::experiment_info& e);
policy::running_allocation running_view_of(const state::trial_info& t,
                                           const state::experiment_info& e);
policy::pool_capacity capacity_view_of(const state::pool_info& p);

class pool_views {
public:
  /// An event of `stream` was applied to the state.
  void note(const std::string& stream);

  /// What changed in `pool`'s view since the last call for it. `full`
  /// builds the whole snapshot when a resync is due.
  policy::pool_delta take(const state::cluster_state& st,
                          const std::string& pool,
                          const std::function<policy::pool_snapshot()>& full);

  /// Pending entries (trials and tasks) in `pool`'s view as of its last
  /// delta.
  [[nodiscard]] size_t pending_in(const std::string& pool) const {
    auto it = pools_.find(pool);
    return it == pools_.end()
               ? 0
               : it->second.pending.size() + it->second.task_pending;
  }

  /// The next delta of `pool` is a resync (its consumer lost its view).
  void forget(const std::string& pool) { pools_.erase(pool); }

private:
  struct tracked {
    bool resync = true;
    std::unordered_set<int64_t> trials;
    std::unordered_set<int64_t> experiments;
    std::unordered_set<std::string> agents;
    // What the consumer holds.
    std::unordered_set<int64_t> pending;
    size_t task_pending = 0; // tasks change only by resync
    /// Agents a running task held at the last resync: an event of one of
    /// them (agent_lost ends its tasks) makes the next delta a resync.
    std::unordered_set<std::string> task_agents;
    std::unordered_map<int64_t, std::vector<std::string>> running;
    std::unordered_set<std::string> known_agents;
  };

  void reset_from(tracked& t, const policy::pool_snapshot& snap);

  std::map<std::string, tracked> pools_;
};

} // namespace det
