// apply() for capacity that follows the outside world (agent_slots_changed:
// a Kubernetes pool's virtual agent as its nodes come and go). Slots are
// indexed and allocations name their indexes, so a shrink only ever drops
// free slots at the end; slots in use past the new count stay until freed
// (agent_info::slot_limit), and end_allocation trims them then.

#include "state/apply_detail.hpp"

#include <algorithm>

namespace det::state::detail {

void trim_retired_slots(agent_info& a) {
  if (!a.slot_limit)
    return;
  auto limit = static_cast<size_t>(*a.slot_limit);
  while (a.slots.size() > limit && a.slots.back().empty())
    a.slots.pop_back();
  auto& d = a.disabled_slots;
  d.erase(std::lower_bound(d.begin(), d.end(),
                           static_cast<int64_t>(a.slots.size())),
          d.end());
  if (a.slots.size() <= limit)
    a.slot_limit.reset();
}

verdict apply_one(cluster_state& s, const agent_slots_changed& ev) {
  auto i = s.agents.find(ev.agent_id);
  if (i == s.agents.end())
    return "unknown agent " + quote(ev.agent_id);
  if (ev.slots < 0)
    return "slots must not be negative";
  auto& a = i->second;
  auto n = static_cast<size_t>(ev.slots);
  if (n >= a.slots.size()) {
    a.slots.resize(n);
    a.slot_limit.reset();
    return {};
  }
  a.slot_limit = ev.slots;
  trim_retired_slots(a);
  return {};
}

} // namespace det::state::detail
