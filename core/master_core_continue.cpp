// master_core: continuing an ended experiment (`det experiment continue`).
// The override is merged over the experiment's config (the override wins,
// mappings merged key by key); the API has validated the merged config as
// a submission. Here, against the master's state: the experiment has ended,
// its searcher is single, grid or random (an override only for single, and
// it stays single), and some trial of it is left to continue. One
// experiment_continued carries the merged config, the trials that reopen
// and the searcher that asks them to train on (same request ids, so no
// new trial is created for them); they resume from their latest
// checkpoints when placed, as a restarted trial does.

#include "core/master_core.hpp"

#include "core/experiment_searcher.hpp"
#include "messages/errc.hpp"
#include "policy/hyperparameters.hpp"
#include "policy/log_policies.hpp"
#include "state/queries.hpp"

#include <algorithm>
#include <climits>

namespace det {

namespace {

std::string searcher_name(const nlohmann::json& config) {
  auto s = config.find("searcher");
  if (s == config.end() || !s->is_object())
    return "";
  auto n = s->find("name");
  return n != s->end() && n->is_string() ? n->get<std::string>() : "";
}

} // namespace

decision master_core::continue_experiment(int64_t id,
                                          const nlohmann::json& override_config,
                                          const std::string& username,
                                          int64_t now_us) {
  decision d;
  auto e = experiment_or_refuse(d, id, "continued");
  if (e == nullptr)
    return d;
  if (!state::is_terminal(e->status))
    return with_refusal(d, errc::failed_precondition,
                        "experiment in non terminal state '"
                            + std::string{state::to_string(e->status)}
                            + "', try again later");
  if (e->archived)
    return with_refusal(d, errc::failed_precondition,
                        "experiment " + std::to_string(id)
                            + " is archived: unarchive it to continue it");
  if (!override_config.is_object())
    return with_refusal(d, errc::invalid_argument,
                        "overrideConfig: expected a mapping of config fields");
  for (const char* key : {"project", "workspace"})
    if (override_config.contains(key))
      return with_refusal(d, errc::invalid_argument,
                          std::string{"overrideConfig."} + key
                              + ": the project and workspace cannot be changed "
                                "when continuing an experiment");
  auto name = searcher_name(e->config);
  if (name != "single" && name != "grid" && name != "random")
    return with_refusal(d, errc::invalid_argument,
                        "Unsupported searcher type provided: '" + name + "'");
  bool overridden = !override_config.empty();
  if (overridden && name != "single")
    return with_refusal(
        d, errc::invalid_argument,
        "override config is provided and experiment is not single "
        "searcher, got '"
            + name + "' instead");
  auto merged = e->config;
  merged.merge_patch(override_config);
  if (searcher_name(merged) != name)
    return with_refusal(d, errc::invalid_argument,
                        "searcher.name: a continued experiment stays '" + name
                            + "', got '" + searcher_name(merged) + "'");
  if (auto sc = policy::parse_searcher_config(
          merged.value("searcher", nlohmann::json::object()));
      !sc)
    return with_refusal(d, errc::invalid_argument, render(sc.error()));
  if (auto why = policy::log_policies_problem(
          merged.value("log_policies", nlohmann::json()));
      !why.empty())
    return with_refusal(d, errc::invalid_argument, "overrideConfig." + why);
  for (auto t : state::trials_of_experiment(st_, id))
    if (t->deleted)
      return with_refusal(d, errc::failed_precondition,
                          "experiment " + std::to_string(id) + ": its run "
                              + std::to_string(t->id)
                              + " was deleted; an experiment with deleted runs "
                                "cannot be continued");

  // Single: its trial continues, completed or not. Grid and random: the
  // trials that did not complete; completed ones stay done.
  std::vector<int64_t> trial_ids;
  std::vector<uint64_t> requests;
  bool all_completed = true;
  for (auto t : state::trials_of_experiment(st_, id)) {
    bool completed = t->status == state::trial_status::completed;
    all_completed = all_completed && completed;
    if (completed && name != "single")
      continue;
    auto req = request_number(t->request_id);
    if (!req)
      continue; // not a trial of this searcher
    trial_ids.push_back(t->id);
    requests.push_back(*req);
  }
  if (name != "single" && all_completed
      && e->status == state::experiment_status::completed)
    return with_refusal(d, errc::failed_precondition,
                        "experiment has been completed, cannot continue this "
                        "experiment");
  if (trial_ids.empty())
    return with_refusal(d, errc::failed_precondition,
                        "experiment " + std::to_string(id)
                            + " has no trial to continue");

  if (auto m = merged.find("max_restarts"); m != merged.end())
    if (!m->is_number_integer() || m->get<int64_t>() < 0
        || m->get<int64_t>() > INT32_MAX)
      return with_refusal(d, errc::invalid_argument,
                          "max_restarts: expected a whole number from 0");

  auto info = *e;
  info.config = merged;
  auto made = experiment_searcher::of(info, cfg_.seed);
  if (!made)
    return with_refusal(d, errc::invalid_argument,
                        "searcher: cannot be restored with this config: "
                            + render(made.error()));
  auto step = made->reopen(id, requests);
  auto pool = e->pool;
  experiment_continued ev;
  ev.experiment_id = id;
  ev.config = std::move(merged);
  ev.trial_ids = trial_ids;
  ev.searcher_state = step.saved;
  ev.progress = step.progress;
  ev.username = username;
  ev.at_us = now_us;
  // A single-trial experiment runs the override's hyperparameters (its
  // one trial; constants as written, a range drawn as a new trial's is).
  auto space = ev.config.value("hyperparameters", nlohmann::json::object());
  if (name == "single" && trial_ids.size() == 1
      && space
             != e->config.value("hyperparameters", nlohmann::json::object())) {
    auto parsed = policy::parse_hyperparameters(space);
    if (!parsed)
      return with_refusal(d, errc::invalid_argument, render(parsed.error()));
    policy::rng draw(cfg_.seed + static_cast<uint64_t>(id));
    ev.trial_hparams = policy::sample(*parsed, draw);
  }
  if (!emit(d, std::move(ev)))
    return d;
  searchers_.erase(id);
  d.searchers.insert(id);
  d.reply = {{"experiment_id", id}, {"trial_ids", trial_ids}};
  schedule_pool(d, pool, now_us);
  return drive(std::move(d), now_us);
}

} // namespace det
