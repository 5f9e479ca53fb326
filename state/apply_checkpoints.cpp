// apply_one for checkpoint deletion: checkpoints_deletion_requested marks
// an experiment's completed checkpoints "deleting", checkpoints_deleted
// marks deleting ones "deleted" (or, for a deleted experiment, drops them
// from its orphan_checkpoints). A uuid that is not a checkpoint of the
// experiment, or not in the state the event follows from, refuses the
// event. experiment_gc_policy_changed sets the experiment's GC counts,
// log_retention_set its trials' log retention.

#include "state/apply_detail.hpp"

#include <algorithm>
#include <set>

namespace det::state::detail {

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

namespace {

/// Moves each of `uuids` from state `from` (or `also_from`, when given) to
/// `to`.
verdict move_all(cluster_state& s, int64_t exp,
                 const std::vector<std::string>& uuids, const char* from,
                 const char* to, const char* also_from = nullptr) {
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
    const auto& now = copies.front()->state;
    if (now != from && (also_from == nullptr || now != also_from))
      return "checkpoint " + quote(uuid) + " is " + now + ", not " + from
             + (also_from ? std::string{" or "} + also_from : std::string{});
    found.push_back(std::move(copies));
  }
  for (auto& copies : found)
    for (auto* c : copies)
      c->state = to;
  return {};
}

} // namespace

verdict apply_one(cluster_state& s, const checkpoints_deletion_requested& ev) {
  // A partially deleted checkpoint may be deleted whole, as upstream's.
  return move_all(s, ev.experiment_id, ev.uuids, "completed", "deleting",
                  "partially_deleted");
}

verdict apply_one(cluster_state& s, const checkpoints_deleted& ev) {
  auto o = s.orphan_checkpoints.find(ev.experiment_id);
  if (o == s.orphan_checkpoints.end() || s.experiments.count(ev.experiment_id))
    return move_all(s, ev.experiment_id, ev.uuids, "deleting", "deleted");
  auto left = o->second.uuids;
  for (const auto& uuid : ev.uuids) {
    auto i = std::find(left.begin(), left.end(), uuid);
    if (i == left.end())
      return "checkpoint " + quote(uuid)
             + " is not being deleted for deleted experiment "
             + std::to_string(ev.experiment_id);
    left.erase(i);
  }
  if (left.empty())
    s.orphan_checkpoints.erase(o);
  else
    o->second.uuids = std::move(left);
  return {};
}

verdict apply_one(cluster_state& s, const experiment_gc_policy_changed& ev) {
  auto e = s.experiments.find(ev.experiment_id);
  if (e == s.experiments.end())
    return "unknown experiment " + std::to_string(ev.experiment_id);
  auto& storage = e->second.config["checkpoint_storage"];
  if (!storage.is_object())
    storage = nlohmann::json::object();
  storage["save_experiment_best"] = ev.save_experiment_best;
  storage["save_trial_best"] = ev.save_trial_best;
  storage["save_trial_latest"] = ev.save_trial_latest;
  return {};
}

verdict apply_one(cluster_state& s, const log_retention_set& ev) {
  auto e = s.experiments.find(ev.experiment_id);
  if (e == s.experiments.end())
    return "unknown experiment " + std::to_string(ev.experiment_id);
  for (auto id : ev.trial_ids) {
    auto t = s.trials.find(id);
    if (t == s.trials.end() || t->second.experiment_id != ev.experiment_id)
      return "trial " + std::to_string(id) + " is not one of experiment "
             + std::to_string(ev.experiment_id);
  }
  for (auto id : ev.trial_ids.empty() ? e->second.trial_ids : ev.trial_ids)
    if (auto t = s.trials.find(id); t != s.trials.end())
      t->second.log_retention_days = ev.days;
  return {};
}

} // namespace det::state::detail
