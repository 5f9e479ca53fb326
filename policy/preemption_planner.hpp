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
  /// Yields the candidates in the order above (every preempting one, then
  /// every preemptible one, least urgent first), nullptr after the last.
  using source = std::function<const running_allocation*()>;

  /// Candidates from `running`, sorted here. `budget`: candidates examined
  /// over the planner's life (see scheduler_config::preemption_budget);
  /// make_room fails once it is spent.
  preemption_planner(const std::vector<running_allocation>& running,
                     slot_index& index, long long budget);

  /// Candidates from `next`; `candidate_slots` is the number of their
  /// slots on agents the index knows.
  preemption_planner(source next, long long candidate_slots, slot_index& index,
                     long long budget);

  /// Makes room for `p`: on success appends the newly chosen victims' ids
  /// to `preemptions`, reserves the room and returns true.
  bool make_room(const pending_allocation& p,
                 std::vector<std::string>& preemptions);

private:
  struct part {
    slot_index::agent_ref agent;
    const std::vector<int>* slots;
  };
  struct candidate {
    const running_allocation* run;
    std::vector<part> parts;
    int slots = 0;
    bool consumed = false;
  };

  [[nodiscard]] candidate make_candidate(const running_allocation& r);
  /// Whether candidate i exists, pulling it from the source if needed.
  [[nodiscard]] bool have(size_t i);
  void release(const candidate& c);
  void restore(const candidate& c);
  /// The first unconsumed candidate at or after i (path-compressed).
  [[nodiscard]] size_t next_unconsumed(size_t i);
  [[nodiscard]] static bool eligible(const candidate& c,
                                     const pending_allocation& p);

  slot_index& index_;
  source next_;
  std::vector<const running_allocation*> sorted_; // first constructor only
  std::vector<candidate> candidates_;
  std::vector<size_t> skip_; // skip_[i] == i unless i was consumed
  long long unconsumed_slots_ = 0;
  long long budget_;
  std::unordered_set<int> failed_sizes_;
  std::vector<slot_index::part> fit_;
};

} // namespace det::policy::detail
