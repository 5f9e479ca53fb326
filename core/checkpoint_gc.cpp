#include "core/checkpoint_gc.hpp"

#include "messages/errc.hpp"
#include "policy/checkpoint_gc.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <set>

namespace det {

namespace {

using nlohmann::json;

int64_t int_or(const json& j, const char* key, int64_t fallback) {
  auto v = j.find(key);
  return v != j.end() && v->is_number_integer() ? v->get<int64_t>() : fallback;
}

bool has_completed_checkpoint(const state::cluster_state& s,
                              const state::experiment_info& e) {
  for (auto tid : e.trial_ids)
    if (auto t = s.trials.find(tid); t != s.trials.end())
      for (const auto& c : t->second.checkpoints)
        if (c.state == "completed")
          return true;
  return false;
}

} // namespace

policy::gc_policy gc_policy_of(const state::experiment_info& e) {
  // Read in place: this runs for every experiment at each GC pass, and
  // copying the two sections out of the config was most of its cost.
  static const json none = json::object();
  auto section = [](const json& config, const char* key) -> const json& {
    if (!config.is_object())
      return none;
    auto i = config.find(key);
    return i != config.end() && i->is_object() ? *i : none;
  };
  const auto& storage = section(e.config, "checkpoint_storage");
  const auto& searcher = section(e.config, "searcher");
  policy::gc_policy p;
  p.save_experiment_best = int_or(storage, "save_experiment_best", 0);
  p.save_trial_best = int_or(storage, "save_trial_best", 1);
  p.save_trial_latest = int_or(storage, "save_trial_latest", 1);
  if (auto s = searcher.find("smaller_is_better");
      s != searcher.end() && s->is_boolean())
    p.smaller_is_better = s->get<bool>();
  return p;
}

std::vector<std::string>
checkpoints_policy_deletes(const state::cluster_state& s,
                           const state::experiment_info& e,
                           const policy::gc_policy& p) {
  std::vector<policy::gc_trial> trials;
  for (auto tid : e.trial_ids) {
    auto t = s.trials.find(tid);
    if (t == s.trials.end())
      continue;
    policy::gc_trial g;
    g.id = tid;
    g.ended = state::is_terminal(t->second.status);
    for (const auto& c : t->second.checkpoints)
      if (c.state == "completed")
        g.checkpoints.push_back(
            {c.uuid, c.steps_completed, c.at_us, c.searcher_metric});
    trials.push_back(std::move(g));
  }
  return policy::checkpoints_to_delete(trials, p);
}

std::optional<experiment_gc_policy_changed>
gc_policy_change(const state::experiment_info& e, const gc_counts_edit& edit,
                 const std::string& username, int64_t now_us) {
  auto now = gc_policy_of(e);
  experiment_gc_policy_changed ev{
      e.id,
      edit.save_experiment_best.value_or(now.save_experiment_best),
      edit.save_trial_best.value_or(now.save_trial_best),
      edit.save_trial_latest.value_or(now.save_trial_latest),
      username,
      now_us};
  if (ev.save_experiment_best == now.save_experiment_best
      && ev.save_trial_best == now.save_trial_best
      && ev.save_trial_latest == now.save_trial_latest)
    return std::nullopt;
  return ev;
}

std::vector<checkpoints_deletion_requested>
checkpoint_gc_requests(const state::cluster_state& s, int64_t now_us) {
  std::vector<checkpoints_deletion_requested> out;
  for (const auto& [id, e] : s.experiments) {
    // A policy deletes only completed checkpoints: an experiment without
    // one (most of them, in a cluster of thousands) costs a lookup a trial.
    if (!has_completed_checkpoint(s, e))
      continue;
    auto doomed = checkpoints_policy_deletes(s, e, gc_policy_of(e));
    // Logs written before reports were idempotent may list a checkpoint
    // twice; the request names each once (the state refuses a repeat, which
    // held up every experiment's GC).
    std::sort(doomed.begin(), doomed.end());
    doomed.erase(std::unique(doomed.begin(), doomed.end()), doomed.end());
    if (!doomed.empty())
      out.push_back({id, std::move(doomed), "gc", "", now_us});
  }
  return out;
}

std::vector<checkpoint_deletion>
pending_checkpoint_deletions(const state::cluster_state& s) {
  std::map<int64_t, checkpoint_deletion> by_exp;
  for (const auto& [tid, t] : s.trials)
    for (const auto& c : t.checkpoints)
      if (c.state == "deleting") {
        auto& d = by_exp[t.experiment_id];
        d.experiment_id = t.experiment_id;
        d.uuids.push_back(c.uuid);
      }
  for (const auto& [id, o] : s.orphan_checkpoints)
    by_exp[id] = checkpoint_deletion{id, o.uuids, o.storage, true, false};
  // A DELETING experiment, with or without checkpoints left: its
  // TensorBoard files go, then it does.
  for (const auto& [id, e] : s.experiments)
    if (e.deleting) {
      auto& d = by_exp[id];
      d.experiment_id = id;
      d.experiment_deleted = true;
      d.finishes_deletion = true;
    }
  std::vector<checkpoint_deletion> out;
  for (auto& [id, d] : by_exp) {
    if (auto e = s.experiments.find(id); e != s.experiments.end())
      d.storage = e->second.config.value("checkpoint_storage", json::object());
    out.push_back(std::move(d));
  }
  return out;
}

caf::expected<std::vector<checkpoints_deletion_requested>>
user_checkpoint_deletion(const state::cluster_state& s,
                         const std::vector<std::string>& uuids,
                         const std::string& username, int64_t now_us) {
  std::map<int64_t, checkpoints_deletion_requested> by_exp;
  std::set<std::string> seen;
  for (const auto& uuid : uuids) {
    if (!seen.insert(uuid).second)
      continue;
    const state::trial_info* owner = nullptr;
    const state::checkpoint_info* found = nullptr;
    for (const auto& [tid, t] : s.trials) {
      for (const auto& c : t.checkpoints)
        if (c.uuid == uuid) {
          owner = &t;
          found = &c;
          break;
        }
      if (found != nullptr)
        break;
    }
    if (found == nullptr)
      return make_error(errc::not_found,
                        "checkpointUuids: no checkpoint '" + uuid + "'");
    if (found->state != "completed" && found->state != "partially_deleted")
      return make_error(errc::invalid_argument, "checkpointUuids: checkpoint '"
                                                    + uuid + "' is "
                                                    + found->state);
    if (!state::is_terminal(owner->status) && owner->latest_checkpoint
        && owner->latest_checkpoint->uuid == uuid)
      return make_error(
          errc::invalid_argument,
          "checkpointUuids: checkpoint '" + uuid + "' is the latest of trial "
              + std::to_string(owner->id) + ", which has not ended");
    auto& ev = by_exp[owner->experiment_id];
    ev.experiment_id = owner->experiment_id;
    ev.uuids.push_back(uuid);
    ev.reason = "user";
    ev.username = username;
    ev.at_us = now_us;
  }
  std::vector<checkpoints_deletion_requested> out;
  for (auto& [id, ev] : by_exp)
    out.push_back(std::move(ev));
  return out;
}

} // namespace det
