#include "api/tensorboard_launch.hpp"

#include "conf/redact.hpp"
#include "http/grpc_error.hpp"
#include "state/queries.hpp"

#include <set>
#include <string>

namespace det::api {

using json = nlohmann::json;

namespace {

constexpr size_t max_ids = 100;

/// `body[key]` as positive ids into `out`; false after a 400.
bool take_ids(json& body, const char* key, std::vector<int64_t>& out,
              const http::responder& res) {
  auto i = body.find(key);
  if (i == body.end() || i->is_null()) {
    body.erase(key);
    return true;
  }
  bool ok = i->is_array() && i->size() <= max_ids;
  if (ok)
    for (const auto& v : *i)
      ok = ok && v.is_number_integer() && v.get<int64_t>() > 0;
  if (!ok) {
    res.send_error(http::grpc_code::invalid_argument,
                   std::string{key} + ": expected a list of at most "
                       + std::to_string(max_ids) + " positive ids");
    return false;
  }
  for (const auto& v : *i)
    out.push_back(v.get<int64_t>());
  body.erase(key);
  return true;
}

json refusal(int code, const std::string& why) {
  return {{"code", code}, {"error", why}};
}

} // namespace

std::optional<tensorboard_ids>
take_tensorboard_ids(json& body, const http::responder& res) {
  tensorboard_ids ids;
  if (!take_ids(body, "experimentIds", ids.experiments, res)
      || !take_ids(body, "trialIds", ids.trials, res))
    return std::nullopt;
  if (ids.experiments.empty() && ids.trials.empty()) {
    res.send_error(http::grpc_code::invalid_argument,
                   "experimentIds: name at least one experiment or trial "
                   "(trialIds)");
    return std::nullopt;
  }
  if (ids.experiments.size() + ids.trials.size() > max_ids) {
    res.send_error(http::grpc_code::invalid_argument,
                   "experimentIds: at most " + std::to_string(max_ids)
                       + " experiments and trials in all");
    return std::nullopt;
  }
  return ids;
}

json resolve_tensorboard(const state::cluster_state& s,
                         const tensorboard_ids& ids, const std::string& viewer,
                         bool admin) {
  json storage;
  int64_t storage_of = 0;
  // The storage's keys go only to a TensorBoard whose launcher owns every
  // experiment it shows (or is an admin): its process runs the launcher's
  // code (a context's startup-hook.sh), which can read them.
  bool all_owned = true;
  json experiments = json::array();
  json trials = json::array();
  // Every experiment's files must be where the first one's are: one
  // TensorBoard reads one storage.
  auto same_storage = [&](const state::experiment_info& e) -> std::string {
    all_owned = all_owned && (admin || e.owner == viewer);
    auto st = e.config.value("checkpoint_storage", json::object());
    if (storage.is_null()) {
      storage = st;
      storage_of = e.id;
      return {};
    }
    if (st != storage)
      return "experiments " + std::to_string(storage_of) + " and "
             + std::to_string(e.id)
             + " keep their files in different checkpoint storage";
    return {};
  };
  std::set<int64_t> seen;
  for (auto id : ids.experiments) {
    auto e = state::find_experiment(s, id);
    if (e == nullptr)
      return refusal(404, "experiment " + std::to_string(id) + " not found");
    if (auto why = same_storage(*e); !why.empty())
      return refusal(400, "experimentIds: " + why);
    if (seen.insert(id).second)
      experiments.push_back(id);
  }
  std::set<int64_t> trial_seen;
  for (auto id : ids.trials) {
    auto t = state::find_listed_trial(s, id);
    auto e =
        t == nullptr ? nullptr : state::find_experiment(s, t->experiment_id);
    if (e == nullptr)
      return refusal(404, "trial " + std::to_string(id) + " not found");
    if (auto why = same_storage(*e); !why.empty())
      return refusal(400, "trialIds: " + why);
    if (trial_seen.insert(id).second)
      trials.push_back(json::array({t->experiment_id, id}));
  }
  if (!storage.is_object() || !storage.contains("type"))
    return refusal(400, "experiment " + std::to_string(storage_of)
                            + " has no checkpoint_storage to read");
  // The newest experiment's image and pull secrets, for the TensorBoard's
  // config (as upstream inherits them).
  json env = json::object();
  int64_t newest = 0;
  auto consider = [&](int64_t id) {
    auto e = state::find_experiment(s, id);
    if (e == nullptr || id < newest)
      return;
    newest = id;
    env = e->config.value("environment", json::object());
  };
  for (auto id : ids.experiments)
    consider(id);
  for (const auto& pair : trials)
    consider(pair[0].get<int64_t>());
  json inherited = json::object();
  if (env.is_object()) {
    if (auto i = env.find("image"); i != env.end() && !i->is_null())
      inherited["image"] = *i;
    auto secrets = env.value("pod_spec", json::object());
    if (secrets.is_object())
      secrets = secrets.value("spec", json::object());
    if (secrets.is_object())
      if (auto p = secrets.find("imagePullSecrets");
          p != secrets.end() && p->is_array())
        inherited["pod_spec"] = {{"spec", {{"imagePullSecrets", *p}}}};
  }
  return {{"storage", all_owned ? storage : conf::without_secrets(storage)},
          {"experiments", experiments},
          {"trials", trials},
          {"inherited", inherited}};
}

} // namespace det::api
