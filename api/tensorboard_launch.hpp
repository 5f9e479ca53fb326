#pragma once

// What a TensorBoard's launch (POST /api/v1/tensorboards) names beyond a
// command's body: the experiments and trials whose TensorBoard files it
// shows. They are resolved on the read model into the task's
// `tensorboard` data (messages/events_tasks.hpp): the checkpoint storage
// the experiments write to, and which experiment each trial belongs to.
// det-agent's launcher (api/ntsc_entrypoints.cpp) fetches the files from
// <storage>/<cluster id>/tensorboard/experiment/<id>[/trial/<id>].

#include "http/responder.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace det::api {

struct tensorboard_ids {
  std::vector<int64_t> experiments;
  std::vector<int64_t> trials;
};

/// `experimentIds` and `trialIds` moved out of `body` and checked
/// (positive integers, at most 100 in all, at least one); nothing after
/// answering 400 naming the field.
std::optional<tensorboard_ids> take_tensorboard_ids(nlohmann::json& body,
                                                    const http::responder& res);

/// {"storage", "experiments", "trials", "inherited"} for `ids` (inherited:
/// the newest experiment's environment.image and pod_spec's
/// imagePullSecrets, which a TensorBoard's config takes unless it sets
/// them), or {"code": 404 or
/// 400, "error": why} for an experiment or trial that does not exist or
/// experiments whose files are in different storage. The storage keeps
/// its keys (conf/redact.hpp's secrets) only for an admin or a `viewer`
/// who owns every experiment shown; for anyone else they are left out and
/// the TensorBoard reads the files with the agent's own credentials.
nlohmann::json resolve_tensorboard(const state::cluster_state& s,
                                   const tensorboard_ids& ids,
                                   const std::string& viewer, bool admin);

} // namespace det::api
