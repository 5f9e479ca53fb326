#pragma once

// Internal to the priority pass: finds which running allocations must stop
// so that a waiting allocation fits, and reserves the room they leave so
// that no less urgent allocation takes it in the same pass.
//
// Candidates are tried cheapest first: allocations already preempting (their
// slots are as good as free), then preemptible ones from the least urgent
// (priority 99, newest order) up to the waiting allocation's own level (only
// newer ones at its own level). After a fit is found, victims are spared
// again, most urgent first, whenever the fit survives without them.
//
// The candidates come from a source, pulled only as far as the search
// goes: the full pass sorts the running list once; the incremental
// scheduler walks the ordered sets it keeps between passes.

#include "policy/scheduler_types.hpp"
#include "policy/slot_index.hpp"

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

namespace det::policy::detail {

class preemption_planner {
public:
  /// A candidate as a source yields it. `priority`, `order` and
  /// `preempting` are the allocation's. With `resolved`, the source has
  /// looked up its one part: `agent` (npos: not in the index) holds
  /// `count` slots `slots`; without, the planner reads run->resources.
  struct source_item {
    const running_allocation* run = nullptr; // nullptr after the last
    uint64_t order = 0;
    int priority = 0;
    bool preempting = false;
    bool resolved = false;
    slot_index::agent_ref agent = slot_index::npos;
    int count = 0;
    const std::vector<int>* slots = nullptr;
  };
  /// Yields the candidates in the order above (every preempting one, then
  /// every preemptible one, least urgent first).
  using source = std::function<source_item()>;

  struct buffers;

  /// Candidates from `running`, sorted here. `budget`: candidates examined
  /// over the planner's life (see scheduler_config::preemption_budget);
  /// make_room fails once it is spent.
  /// With `reuse`, the planner works in its arrays (emptied, their memory
  /// kept) and hands them back when it is destroyed: a scheduler that
  /// plans every pass then does not grow tens of thousands of entries from
  /// nothing each time.
  preemption_planner(const std::vector<running_allocation>& running,
                     slot_index& index, long long budget,
                     buffers* reuse = nullptr);

  /// Candidates from `next`; `candidate_slots` is the number of their
  /// slots on agents the index knows.
  preemption_planner(source next, long long candidate_slots, slot_index& index,
                     long long budget, buffers* reuse = nullptr);

  ~preemption_planner();
  preemption_planner(const preemption_planner&) = delete;
  preemption_planner& operator=(const preemption_planner&) = delete;

  /// Makes room for `p`: on success appends the newly chosen victims' ids
  /// to `preemptions`, reserves the room and returns true.
  bool make_room(const pending_allocation& p,
                 std::vector<std::string>& preemptions);

private:
  // The search touches every candidate it walks, so what it reads at each
  // step lies in flat arrays: the candidates in walk order, their parts
  // side by side, and a note per agent.
  struct part {
    slot_index::agent_ref agent = 0;
    int count = 0;
    const std::vector<int>* slots = nullptr;
  };
  struct candidate {
    const running_allocation* run = nullptr;
    uint64_t order = 0; // copied from *run
    uint32_t first_part = 0;
    uint32_t part_count = 0;
    int priority = 0; // copied from *run
    int slots = 0;
    bool preempting = false; // copied from *run
    bool consumed = false;
  };
  /// Releases of one make_room that the index has not seen, on an agent
  /// that does not count for the allocation (so they cannot change what
  /// the index finds): their slot count and a list through noted_. Eight
  /// bytes, so that the notes of 10,000 agents stay in a core's cache.
  struct agent_note {
    static constexpr int32_t untouched = -1; // nothing noted yet
    static constexpr int32_t in_index = -2;  // its releases go to the index
    int32_t slots = 0;
    int32_t head = untouched; // or the last noted part, or in_index
  };
  struct noted_part {
    uint32_t candidate = 0;
    uint32_t part = 0;
    int32_t next = -1;
  };

  /// The slots of `r` on agents the index knows.
  [[nodiscard]] int known_slots(const running_allocation& r);
  void append_candidate(const source_item& item);
  /// Whether candidate i exists, pulling it from the source if needed.
  [[nodiscard]] bool have(size_t i);
  void restore(const candidate& c);
  /// The first unconsumed candidate at or after i (path-compressed).
  [[nodiscard]] size_t next_unconsumed(size_t i);
  [[nodiscard]] static bool eligible(const candidate& c,
                                     const pending_allocation& p);
  /// Whether agent `a`, with the slots noted on it, can be part of a fit
  /// for `p`: it has p.slots free or is idle. Only such agents decide what
  /// the index finds for `p` (slot_index::find).
  [[nodiscard]] bool counts_for(slot_index::agent_ref a,
                                const pending_allocation& p) const;
  /// Releases candidate i's slots: into the index on agents that count
  /// for `p` (an agent's noted releases go in when it starts to count),
  /// noted aside on the others. True when an agent of it counts.
  bool take_out(size_t i, const pending_allocation& p);
  /// The spare's step: restores candidate i's slots in the index
  /// (`restore_it`) or releases them again there. Its noted slots stay as
  /// they are: while sparing, free slots only shrink from where the search
  /// ended, so no agent starts to count and the notes are not read again.
  void spare_step(size_t i, bool restore_it);
  /// Forgets every noted release (the index never saw them).
  void drop_noted();
  /// Whether `c` holds slots on an agent of `fit`.
  [[nodiscard]] bool touches(const candidate& c,
                             const std::vector<slot_index::part>& fit) const;

public:
  /// The planner's arrays, kept between planners by their owner.
  struct buffers {
    std::vector<candidate> candidates;
    std::vector<part> parts;
    std::vector<size_t> skip;
    std::vector<agent_note> notes; // every entry untouched between planners
    std::vector<noted_part> noted;
    std::vector<slot_index::agent_ref> noted_agents;
    std::vector<size_t> in_index_candidates;
    std::vector<size_t> released;
    std::vector<size_t> needed;
  };

private:
  /// Takes reuse_'s arrays (emptied) for the planner's life.
  void adopt_buffers();
  /// Swaps the arrays with `b`'s.
  void swap_buffers(buffers& b);

  slot_index& index_;
  buffers* reuse_ = nullptr;
  source next_;
  std::vector<const running_allocation*> sorted_; // first constructor only
  std::vector<candidate> candidates_;
  std::vector<part> parts_;
  std::vector<size_t> skip_; // skip_[i] == i unless i was consumed
  long long unconsumed_slots_ = 0;
  long long budget_;
  std::unordered_set<int> failed_sizes_;
  std::vector<slot_index::part> fit_;
  std::vector<slot_index::part> kept_fit_;
  std::vector<agent_note> notes_; // by agent
  std::vector<noted_part> noted_;
  std::vector<slot_index::agent_ref> noted_agents_;
  /// Candidates released in this make_room with a part in the index: the
  /// only ones whose restore can change what the index finds.
  std::vector<size_t> in_index_candidates_;
  /// make_room's: the candidates it released, and the victims it keeps.
  std::vector<size_t> released_;
  std::vector<size_t> needed_;
};

} // namespace det::policy::detail
