#include "core/experiment_deletion.hpp"

#include "state/queries.hpp"

namespace det {

experiment_deletion delete_experiment_events(const state::cluster_state& s,
                                             int64_t id,
                                             const std::string& username,
                                             int64_t now_us,
                                             deletion_mode mode) {
  experiment_deletion out;
  auto refuse = [&out](errc code, std::string why) {
    out.code = code;
    out.why = std::move(why);
    out.events.clear();
    return std::move(out);
  };
  auto e = state::find_experiment(s, id);
  if (e == nullptr)
    return refuse(errc::not_found,
                  "experiment " + std::to_string(id) + " not found");
  // As upstream: only its owner or an admin deletes an experiment, and
  // that is checked before its state.
  if (auto u = s.users.find(username);
      e->owner != username && (u == s.users.end() || !u->second.admin))
    return refuse(errc::permission_denied,
                  "forbidden: user '" + username
                      + "' may not delete experiment " + std::to_string(id)
                      + " (only its owner or an admin may)");
  if (!state::is_terminal(e->status))
    return refuse(errc::invalid_argument,
                  "experiment " + std::to_string(id) + " is "
                      + state::to_string(e->status)
                      + ": only an ended experiment can be deleted "
                        "(kill it first)");
  if (e->deleting) {
    if (mode == deletion_mode::after_files)
      return refuse(errc::failed_precondition,
                    "experiment " + std::to_string(id)
                        + " is being deleted already");
    out.events.emplace_back(experiment_deleted{id, username, now_us});
    return out;
  }
  // Its completed checkpoints go to the collector first; with those
  // already being deleted they outlive the experiment (orphan_checkpoints)
  // until their files are gone.
  std::vector<std::string> uuids;
  for (auto t : state::trials_of_experiment(s, id))
    for (const auto& c : t->checkpoints) {
      if (c.state == "completed")
        uuids.push_back(c.uuid);
      for (const auto& [mid, m] : s.models)
        for (const auto& v : m.versions)
          if (v.checkpoint_uuid == c.uuid)
            return refuse(errc::conflict,
                          "experiment " + std::to_string(id)
                              + ": its checkpoint " + c.uuid + " is version "
                              + std::to_string(v.version) + " of model '"
                              + m.name + "'; delete that version first");
    }
  out.checkpoints = uuids.size();
  if (!uuids.empty())
    out.events.emplace_back(checkpoints_deletion_requested{
        id, std::move(uuids), "delete", username, now_us});
  if (mode == deletion_mode::after_files)
    out.events.emplace_back(experiment_deletion_started{id, username, now_us});
  else
    out.events.emplace_back(experiment_deleted{id, username, now_us});
  return out;
}

} // namespace det
