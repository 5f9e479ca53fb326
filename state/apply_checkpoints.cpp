// apply_one for checkpoint deletion: checkpoints_deletion_requested marks
// an experiment's completed checkpoints "deleting", checkpoints_deleted
// marks deleting ones "deleted". A uuid that is not a checkpoint of the
// experiment, or not in the state the event follows from, refuses the
// event.

#include "state/apply_detail.hpp"

#include <set>

namespace det::state::detail {

namespace {

// Every copy of checkpoint `uuid` in experiment `exp` (the trial's list and
// its latest_checkpoint), or empty.
std::vector<checkpoint_info*> copies_of(cluster_state& s, int64_t exp,
                                        const std::string& uuid) {
  std::vector<checkpoint_info*> out;
  for (auto& [id, t] : s.trials) {
    if (t.experiment_id != exp)
      continue;
    for (auto& c : t.checkpoints)
      if (c.uuid == uuid)
        out.push_back(&c);
    if (!out.empty() && t.latest_checkpoint
        && t.latest_checkpoint->uuid == uuid)
      out.push_back(&*t.latest_checkpoint);
    if (!out.empty())
      break;
  }
  return out;
}

verdict move_all(cluster_state& s, int64_t exp,
                 const std::vector<std::string>& uuids, const char* from,
                 const char* to) {
  if (s.experiments.count(exp) == 0)
    return "unknown experiment " + std::to_string(exp);
  std::set<std::string> seen;
  std::vector<std::vector<checkpoint_info*>> found;
  for (const auto& uuid : uuids) {
    if (!seen.insert(uuid).second)
      return "checkpoint " + quote(uuid) + " is listed twice";
    auto copies = copies_of(s, exp, uuid);
    if (copies.empty())
      return "checkpoint " + quote(uuid) + " is not one of experiment "
             + std::to_string(exp);
    if (copies.front()->state != from)
      return "checkpoint " + quote(uuid) + " is " + copies.front()->state
             + ", not " + from;
    found.push_back(std::move(copies));
  }
  for (auto& copies : found)
    for (auto* c : copies)
      c->state = to;
  return {};
}

} // namespace

verdict apply_one(cluster_state& s, const checkpoints_deletion_requested& ev) {
  return move_all(s, ev.experiment_id, ev.uuids, "completed", "deleting");
}

verdict apply_one(cluster_state& s, const checkpoints_deleted& ev) {
  return move_all(s, ev.experiment_id, ev.uuids, "deleting", "deleted");
}

} // namespace det::state::detail
