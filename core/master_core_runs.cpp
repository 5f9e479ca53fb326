// master_core: the Runs API's actions and a user's metrics
// (core/commands_trials.hpp). An action qualifies each run it names
// against this state (core/runs.hpp's run_facts_of) and acts on the ones
// that qualify in the same decision, so what it checked cannot change
// before it acts. Each run gets its result: "" when done (or nothing was
// left to do), else why not in upstream's words; the others are acted on
// all the same.

#include "core/master_core.hpp"

#include "core/runs.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <map>

namespace det {

namespace {

using nlohmann::json;

std::string run_not_found(int64_t id, int64_t project_id) {
  auto text = "Run with id '" + std::to_string(id) + "' not found";
  if (project_id != 0)
    text += " in project with id '" + std::to_string(project_id) + "'";
  return text;
}

/// The result a run gets without acting on it, or nothing when it
/// qualifies (upstream's checks, in its words).
std::optional<std::string> answered_at_once(const runs_act& c, int64_t id,
                                            const run_facts& f) {
  auto run = "run '" + std::to_string(id) + "'";
  auto search = std::to_string(f.experiment_id);
  switch (c.action) {
  case run_action::kill:
    if (f.terminal)
      return std::string{};
    break;
  case run_action::pause:
  case run_action::resume:
    if (f.archived)
      return std::string{"Run is archived."};
    if (!f.single)
      return "Cannot pause/unpause " + run + " (part of multi-trial).";
    break;
  case run_action::move:
    if (f.archived)
      return std::string{"Run is archived."};
    if (c.skip_multitrial && f.multitrial)
      return "Skipping " + run + " (part of multi-trial).";
    break;
  case run_action::archive:
  case run_action::unarchive:
    if (f.archived)
      return "Run is part of archived Search (id: '" + search + "').";
    if (f.run_archived == (c.action == run_action::archive))
      return std::string{};
    if (!f.terminal)
      return std::string{"Run is not in terminal state."};
    break;
  case run_action::remove:
    if (!f.terminal)
      return std::string{"Run is not in a terminal state."};
    if (!f.experiment_ended)
      return "Run is part of an active search (id: '" + search
             + "'); its runs can be deleted once it has ended.";
    break;
  }
  return std::nullopt;
}

/// What a refusal of the act on a run's experiment is prefixed with.
const char* failed_prefix(run_action a) {
  switch (a) {
  case run_action::kill:
    return "Failed to kill run: ";
  case run_action::pause:
    return "Failed to pause associated experiment: ";
  case run_action::resume:
    return "Failed to resume associated experiment: ";
  case run_action::move:
    return "Failed to move associated experiment: ";
  default:
    return "";
  }
}

} // namespace

decision master_core::on(const runs_act& c, int64_t now_us) {
  decision d;
  json results = json::array();
  json deleted = json::array();
  auto answer = [&results](int64_t id, const std::string& error) {
    results.push_back({{"error", error}, {"id", id}});
  };
  // The runs that qualify, by experiment (kill: one at a time).
  std::map<int64_t, std::vector<int64_t>> runs_of;
  for (auto id : c.run_ids) {
    auto f = run_facts_of(st_, id, c.project_id);
    if (!f.found)
      answer(id, run_not_found(id, c.project_id));
    else if (auto now = answered_at_once(c, id, f))
      answer(id, *now);
    else
      runs_of[f.experiment_id].push_back(id);
  }
  // Each act's events are kept (they are applied already) and its
  // refusal is its runs' result, not the command's.
  auto act = [&](const std::vector<int64_t>& runs, decision one) {
    std::string error;
    if (one.refusal)
      error = failed_prefix(c.action) + render(one.refusal);
    one.refusal = caf::error{};
    absorb(d, std::move(one));
    for (auto id : runs) {
      answer(id, error);
      if (error.empty() && c.action == run_action::remove)
        deleted.push_back(id);
    }
  };
  for (const auto& [exp, runs] : runs_of) {
    switch (c.action) {
    case run_action::kill:
      for (auto id : runs)
        act({id}, kill_trial(id, now_us));
      break;
    case run_action::pause:
      act(runs, pause_experiment(exp, now_us));
      break;
    case run_action::resume:
      act(runs, activate_experiment(exp, now_us));
      break;
    case run_action::move:
      act(runs, on(experiment_move{exp, c.destination_project_id, c.username},
                   now_us));
      break;
    case run_action::archive:
    case run_action::unarchive:
      act(runs,
          recorded(archive_runs(st_, exp, runs, c.action == run_action::archive,
                                c.username, now_us)));
      break;
    case run_action::remove:
      act(runs, recorded(delete_runs(st_, exp, runs, c.username, now_us)));
      break;
    }
  }
  d.reply = {{"results", std::move(results)}};
  if (c.action == run_action::remove)
    d.reply["deleted"] = std::move(deleted);
  return d;
}

decision master_core::on(const user_metrics_report& c, int64_t now_us) {
  auto t = state::find_listed_trial(st_, c.trial_id);
  if (t == nullptr || !st_.experiments.at(t->experiment_id).unmanaged)
    return recorded(decide_record(st_, c, now_us));
  // An unmanaged trial's client reports its own, with a user's session.
  decision d;
  if (heard_unmanaged_trial(d, t->id, now_us))
    emit(d, metrics_event(c, now_us));
  return d;
}

} // namespace det
