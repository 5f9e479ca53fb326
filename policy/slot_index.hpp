#pragma once

// The free slots of a pool during one scheduling pass, bucketed by how many
// slots each agent has free so that a fit is found without scanning agents:
// best fit is the lowest non-empty bucket at or above the request (a bitset
// finds it), a multi-agent gang takes whole idle agents from the per-size
// idle sets. Not thread-safe.
//
// Among agents of equal standing the one listed first (lowest position in
// the agent list) is taken: each bucket is a bitset over agent positions,
// so the choice depends on the free slots alone, never on the order of
// earlier takes. That makes a persistent index (incremental_scheduler)
// choose exactly as one built afresh for the same agents.
//
// Gang rule (as upstream): a request that fits on no single agent may span
// several agents only if they are idle (no slot in use), all of one size s,
// and the request is a multiple of s. Each such agent gives all its slots.

#include "policy/scheduler_types.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace det::policy {

class slot_index {
public:
  using agent_ref = uint32_t;

  /// One part of a fit: `count` slots on agent `agent`.
  struct part {
    agent_ref agent;
    int count;
  };

  /// Indexes `agents` (which must outlive the index). Disabled and draining
  /// agents are tracked (preempted slots return to them) but never offered.
  slot_index(const std::vector<agent_view>& agents, fitting_policy fitting);

  /// Free slots on agents that accept work.
  [[nodiscard]] int free_total() const { return free_total_; }

  /// Free slots on agent `a`, and all its slots. An agent can be part of a
  /// fit of n slots only if it has n free or is idle (free == total).
  [[nodiscard]] int free_on(agent_ref a) const { return counts_[a].free; }
  [[nodiscard]] int total_on(agent_ref a) const { return counts_[a].total; }

  /// Finds room for `slots` slots without taking it; false when none.
  /// `out` is overwritten.
  [[nodiscard]] bool find(int slots, std::vector<part>& out) const;

  /// find() for `p`, on the agents other than its avoid_agents.
  [[nodiscard]] bool find_for(const pending_allocation& p,
                              std::vector<part>& out);

  /// Takes the slots of a fit found by find(): the lowest free indices of
  /// each agent.
  std::vector<agent_slots> take(const std::vector<part>& fit);

  /// Takes these exact slots (they must be free) on `agent`.
  void take_exact(agent_ref agent, const std::vector<int>& slots);

  /// Returns slots to `agent`'s free set.
  void release(agent_ref agent, const std::vector<int>& slots);

  /// The agent with this id, or `npos`. Builds its map on first use.
  [[nodiscard]] agent_ref lookup(const std::string& id);

  [[nodiscard]] const std::string& id_of(agent_ref a) const {
    return (*agents_)[a].id;
  }

  /// Re-reads agent `a` of the list given to the constructor after its
  /// owner changed it or appended it (a == the old size); `old_id` is the
  /// id it had before. An agent that left stays in the list as a hole: no
  /// id, no slots.
  void reload(agent_ref a, const std::string& old_id);

  /// From now on every change to an agent's free slots is recorded, so that
  /// rollback() can undo a whole pass.
  void start_journal();
  /// Undoes every change since start_journal() and stops recording.
  void rollback();

  static constexpr agent_ref npos = UINT32_MAX;

private:
  /// A set of agent positions: a bitset with a summary word per 64 words,
  /// so the lowest member is found in a few word reads.
  class ref_set {
  public:
    void insert(agent_ref a);
    void erase(agent_ref a);
    [[nodiscard]] bool empty() const { return count_ == 0; }
    [[nodiscard]] size_t size() const { return count_; }
    /// The lowest member at or after `from`, npos when none.
    [[nodiscard]] agent_ref first_from(agent_ref from) const;

  private:
    std::vector<uint64_t> words_;
    std::vector<uint64_t> summary_;
    size_t count_ = 0;
  };

  struct agent_entry {
    std::vector<int> free; // ascending
    int total = 0;
    bool usable = false;
    bool journaled = false;
  };
  /// An agent's counts, kept beside entries_ in a dense array for callers
  /// that read many agents (the preemption planner).
  struct agent_counts {
    int free = 0;
    int total = 0;
  };
  struct saved_free {
    agent_ref agent;
    std::vector<int> free;
  };

  void unlink(agent_ref a);
  void link(agent_ref a);
  void load(agent_ref a);
  void note_change(agent_ref a);
  void recount(agent_ref a) {
    counts_[a] = agent_counts{static_cast<int>(entries_[a].free.size()),
                              entries_[a].total};
  }
  void grow_buckets(int total);
  void count_size(int total, int delta);
  [[nodiscard]] int lowest_bucket_at_least(int slots) const;
  [[nodiscard]] int highest_bucket_at_least(int slots) const;

  const std::vector<agent_view>* agents_;
  fitting_policy fitting_;
  std::vector<agent_entry> entries_;
  std::vector<agent_counts> counts_; // by agent, as entries_ says
  std::vector<ref_set> bucket_;      // by free count
  std::vector<ref_set> idle_;        // by total, free == total
  std::vector<uint64_t> nonempty_;   // bit c: bucket_[c] non-empty
  std::vector<long long> of_size_;   // usable agents by total
  std::vector<int> sizes_desc_;      // distinct usable totals
  std::unordered_map<std::string, agent_ref> by_id_;
  bool by_id_built_ = false;
  bool journal_on_ = false;
  std::vector<saved_free> journal_;
  int free_total_ = 0;
  int max_bucket_ = 0;
};

} // namespace det::policy
