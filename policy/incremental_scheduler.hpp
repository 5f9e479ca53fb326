#pragma once

// A pool's scheduler that keeps its view between passes and is told what
// changed (an agent's slots, an allocation that arrived, started, stopped
// or left) instead of being handed the whole pool each time. A pass then
// costs what it decides, not what the pool holds: the free-slot index, the
// queue by (priority, size) and the candidate victims are kept ordered
// across passes, and a pass undoes its own tentative takes when it ends.
//
// pass() returns exactly what schedule_pool(snapshot(), config) returns
// (tests/policy/incremental_scheduler_test checks it on random histories).
// That is the fallback: when the view holds two allocations with the same
// `order`, or a pending priority outside 0..255, the order of the full
// pass is not a function of the view alone, and pass() runs the full pass
// on snapshot() itself.
//
// snapshot() lists agents in the order they first joined the view (an
// agent that left frees its place for the next one), allocations by
// (order, id): ties between equal agents go to the one listed first.

#include "policy/chunked_map.hpp"
#include "policy/preemption_planner.hpp"
#include "policy/scheduler_types.hpp"
#include "policy/slot_index.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace det::policy {

class capacity_check;

/// What changed in a pool's view since the last delta: entries to add or
/// replace, ids that left; or, with `resync`, the whole view in `full`.
struct pool_delta {
  bool resync = false;
  pool_snapshot full;
  pool_capacity capacity;
  std::vector<agent_view> agents;
  std::vector<std::string> agents_gone;
  std::vector<pending_allocation> pending;
  std::vector<std::string> pending_gone;
  std::vector<running_allocation> running;
  std::vector<std::string> running_gone;

  [[nodiscard]] size_t size() const {
    return agents.size() + agents_gone.size() + pending.size()
           + pending_gone.size() + running.size() + running_gone.size();
  }
};

class incremental_scheduler {
public:
  explicit incremental_scheduler(scheduler_config config);
  incremental_scheduler(const incremental_scheduler&) = delete;
  incremental_scheduler& operator=(const incremental_scheduler&) = delete;
  ~incremental_scheduler();

  [[nodiscard]] const scheduler_config& config() const { return config_; }

  void set_capacity(const pool_capacity& capacity);
  /// Adds the agent, or replaces the one with its id.
  void upsert_agent(const agent_view& agent);
  void remove_agent(const std::string& id);
  void upsert_pending(const pending_allocation& p);
  void remove_pending(const std::string& id);
  void upsert_running(const running_allocation& r);
  void remove_running(const std::string& id);

  /// Makes the view equal to `snap`, touching only what differs. Linear in
  /// the snapshot; for a caller that cannot say what changed.
  void sync(const pool_snapshot& snap);

  /// Applies a delta: removals first, then additions and replacements
  /// (a resync is sync(full)).
  void apply(const pool_delta& delta);

  /// One scheduling pass over the view. The view itself is unchanged: the
  /// caller reports the placements and preemptions back once they happen.
  [[nodiscard]] schedule_result pass();

  /// The view as a full snapshot (for the full pass and for checks).
  [[nodiscard]] pool_snapshot snapshot() const;

  /// False when pass() would fall back to the full pass (see above).
  [[nodiscard]] bool incremental() const;

  [[nodiscard]] size_t pending_count() const { return pending_.size(); }
  [[nodiscard]] size_t running_count() const { return running_.size(); }

  /// Key of an allocation in every ordered set: (order, id).
  using key = std::pair<uint64_t, std::string_view>;
  template <class T> using queue = std::map<key, const T*>;

private:
  struct level {
    std::map<int, queue<pending_allocation>> by_size; // no avoid_agents
    queue<pending_allocation> avoiding;
    size_t count = 0;
  };
  struct weights {
    std::map<double, long long> counts;
    void add(double w) { ++counts[w]; }
    void remove(double w);
    [[nodiscard]] double max() const;
  };
  struct group {
    std::map<int, queue<pending_allocation>> by_size; // every pending
    std::map<int, weights> pending_weights;
    queue<running_allocation> running;
    weights running_weights;
    long long active = 0;
    long long soon_free = 0;
  };

  [[nodiscard]] schedule_result priority_pass();
  [[nodiscard]] schedule_result fair_share_pass();
  void count_order(uint64_t order, int delta);
  void count_candidate(const running_allocation& r, int delta);
  [[nodiscard]] long long known_candidate_slots() const {
    return candidate_slots_;
  }
  void unschedulable_in_order(
      const std::vector<const queue<pending_allocation>*>& queues,
      capacity_check& capacity, schedule_result& out) const;

  scheduler_config config_;
  pool_capacity capacity_;
  // Agents: positions are slot_index refs; a hole has an empty id.
  std::unique_ptr<std::vector<agent_view>> agents_;
  std::unique_ptr<slot_index> index_;
  std::unordered_map<std::string, slot_index::agent_ref> agent_at_;
  std::vector<slot_index::agent_ref> holes_;
  std::map<int, long long, std::greater<>> agents_by_size_;
  long long pool_slots_ = 0; // enabled, not draining

  std::unordered_map<std::string, pending_allocation> pending_;
  std::map<int, level> levels_;                              // by priority
  std::map<int, queue<pending_allocation>> pending_by_size_; // every one
  std::unordered_map<std::string, group> groups_;
  queue<pending_allocation> all_pending_;

  std::unordered_map<std::string, running_allocation> running_;
  queue<running_allocation> all_running_;
  queue<running_allocation> preempting_; // candidates, listing order
  /// A candidate victim with its one part's agent looked up, so that the
  /// preemption planner reads it without touching the allocation: valid
  /// while `generation` is agents_generation_.
  struct regular_entry {
    const running_allocation* run = nullptr;
    const std::vector<int>* slots = nullptr; // one part; nullptr: several
    int count = 0;
    mutable slot_index::agent_ref agent = slot_index::npos;
    mutable uint64_t generation = 0;
  };
  /// Preemptible, not preempting: least urgent first.
  /// Walked by every preemption search, so kept in chunks (chunked_map).
  chunked_map<std::pair<int, key>, regular_entry, std::greater<>> regular_;
  /// Changes whenever an agent id gets or loses its place in the index.
  uint64_t agents_generation_ = 1;
  std::unordered_map<std::string, long long> candidate_slots_on_;
  long long candidate_slots_ = 0; // on agents of the view

  /// The preemption planner's arrays, kept from pass to pass.
  detail::preemption_planner::buffers planner_buffers_;

  std::unordered_map<uint64_t, int> orders_;
  long long repeated_orders_ = 0;
  long long odd_priorities_ = 0;
};

/// Whether two snapshots hold the same agents, allocations and capacity,
/// in whatever order each lists them.
[[nodiscard]] bool same_view(const pool_snapshot& a, const pool_snapshot& b);
/// The same placements (allocations, agents and slots, in order), the
/// same preemptions and the same "never fits" allocations and reasons.
[[nodiscard]] bool same_decisions(const schedule_result& a,
                                  const schedule_result& b);
/// The first difference between two views ("agent a1 differs", ...), or
/// "" when they are the same: for the log when a check finds one.
[[nodiscard]] std::string view_difference(const pool_snapshot& a,
                                          const pool_snapshot& b);

} // namespace det::policy
