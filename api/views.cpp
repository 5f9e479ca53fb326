#include "api/views.hpp"

#include "conf/task_env.hpp"

#include "api/views_cluster.hpp"
#include "util/time_text.hpp"

#include "conf/redact.hpp"
#include "core/warm_start.hpp"

#include "util/text.hpp"

#include "state/queries.hpp"
#include "state/records_queries.hpp"

#include <ctime>

namespace det::api {

std::string rfc3339(int64_t at_us) {
  return util::format_rfc3339(at_us);
}

std::string experiment_state_name(state::experiment_status s) {
  return std::string{"STATE_"} + state::to_string(s);
}

std::string experiment_state_name(const state::cluster_state& s,
                                  const state::experiment_info& e) {
  if (e.deleting)
    return "STATE_DELETING";
  if (e.status != state::experiment_status::active)
    return experiment_state_name(e.status);
  // An active experiment as upstream shows it: RUNNING once a trial runs,
  // PULLING while one is being started, QUEUED otherwise.
  using ts = state::trial_status;
  bool starting = false;
  for (auto id : e.trial_ids) {
    auto t = state::find_listed_trial(s, id);
    if (t == nullptr)
      continue;
    if (t->status == ts::running || t->status == ts::checkpointing)
      return "STATE_RUNNING";
    starting |= t->status == ts::assigned;
  }
  return starting ? "STATE_PULLING" : "STATE_QUEUED";
}

std::string trial_state_name(state::trial_status s) {
  using ts = state::trial_status;
  switch (s) {
  case ts::pending:
  case ts::exited:
    return "STATE_QUEUED";
  case ts::assigned:
    return "STATE_PULLING";
  case ts::running:
  case ts::checkpointing:
    return "STATE_RUNNING";
  case ts::completed:
    return "STATE_COMPLETED";
  case ts::errored:
    return "STATE_ERROR";
  case ts::canceled:
    return "STATE_CANCELED";
  }
  return "STATE_UNSPECIFIED";
}

namespace {

nlohmann::json metrics_workload(const nlohmann::json& metrics, int64_t steps) {
  if (metrics.is_null())
    return nullptr;
  return {{"metrics", {{"avgMetrics", metrics}}},
          {"numInputs", 0},
          {"totalBatches", steps}};
}

bool ended(state::trial_status s) {
  using ts = state::trial_status;
  return s == ts::completed || s == ts::errored || s == ts::canceled;
}

} // namespace

nlohmann::json effective_config(const state::experiment_info& e) {
  auto c = e.config;
  if (!c.is_object())
    return c;
  // `det experiment set priority|weight|max-slots` and `det job update`
  // change these after submission; the config shows them as they are now.
  auto& r = c["resources"];
  if (!r.is_object())
    r = nlohmann::json::object();
  r["priority"] = e.priority;
  r["weight"] = e.weight;
  r["max_slots"] =
      e.max_slots > 0 ? nlohmann::json(e.max_slots) : nlohmann::json();
  return c;
}

experiment_home home_of(const state::cluster_state& s, int64_t project_id) {
  experiment_home h;
  auto p = state::find_project(s, project_id);
  if (!p)
    return h;
  auto w = state::find_workspace(s, p->workspace_id);
  h.project_name = p->name;
  h.project_key = p->key;
  h.workspace_id = p->workspace_id;
  h.workspace_name = w ? w->name : std::string{};
  h.parent_archived = p->archived || (w && w->archived);
  return h;
}

bool listed_as_archived(const state::cluster_state& s,
                        const state::experiment_info& e, bool one_project) {
  return e.archived
         || (!one_project && home_of(s, e.project_id).parent_archived);
}

nlohmann::json experiment_json(const state::cluster_state& s,
                               const state::experiment_info& e,
                               experiment_detail detail) {
  const auto& c = e.config;
  auto searcher = c.value("searcher", nlohmann::json::object());
  auto shown = conf::redact(effective_config(e));
  auto listed = state::listed_trial_ids(s, e);
  nlohmann::json j{
      {"id", e.id},
      {"name", c.value("name", std::string{"Experiment"})},
      {"description", c.value("description", std::string{})},
      {"archived", e.archived},
      {"notes", e.notes},
      {"config", shown},
      {"originalConfig",
       detail == experiment_detail::full ? shown.dump() : std::string{}},
      {"jobId", "exp-" + std::to_string(e.id)},
      {"numTrials", listed.size()},
      {"trialIds", listed},
      {"projectId", e.project_id},
      {"searcherType", searcher.value("name", std::string{"single"})},
      {"searcherMetric", searcher.value("metric", std::string{})},
      {"startTime", rfc3339(e.submitted_at_us)},
      {"state", experiment_state_name(s, e)},
      {"username", e.owner},
      {"resourcePool", e.pool},
      {"progress", e.progress},
      {"labels", c.value("labels", nlohmann::json::array())},
  };
  // The project and its workspace. Workspace and project events drop every
  // kept row (read/fragments), so their names here stay current.
  auto home = home_of(s, e.project_id);
  j["projectName"] = home.project_name;
  j["projectOwnerId"] = 1;
  j["workspaceId"] = home.workspace_id;
  j["workspaceName"] = home.workspace_name;
  j["parentArchived"] = home.parent_archived;
  j["unmanaged"] = e.unmanaged;
  if (!e.external_id.empty())
    j["externalExperimentId"] = e.external_id;
  auto owner = s.users.find(e.owner);
  j["userId"] = owner != s.users.end() ? owner->second.id : 0;
  j["displayName"] =
      owner != s.users.end() ? owner->second.display_name : std::string{};
  j["hyperparameters"] = c.value("hyperparameters", nlohmann::json::object());
  j["forkedFrom"] = nullptr;
  int64_t count = 0;
  int64_t bytes = 0;
  for (auto id : e.trial_ids)
    if (auto t = state::find_trial(s, id))
      for (const auto& ck : t->checkpoints)
        if (state::checkpoint_kept(ck)) {
          ++count;
          bytes += state::checkpoint_bytes(ck);
        }
  j["checkpointCount"] = count;
  j["checkpointSize"] = std::to_string(bytes); // an int64: a string in JSON
  using es = state::experiment_status;
  if (e.status == es::completed || e.status == es::canceled
      || e.status == es::error) {
    j["endTime"] = rfc3339(e.state_changed_at_us);
    // Whole seconds from submission to the end. A live experiment's
    // duration grows with the clock, which no row of the read model
    // holds: it is left out until the experiment ends.
    j["duration"] = (e.state_changed_at_us - e.submitted_at_us) / 1000000;
  }
  return j;
}

nlohmann::json summary_metrics_json(const state::metrics_summary& m) {
  if (!m.summaries.is_object() || m.summaries.empty())
    return nullptr;
  nlohmann::json out = nlohmann::json::object();
  // Other groups first, so a group that calls itself "avg_metrics" or
  // "validation_metrics" cannot hide training's or validation's.
  for (const auto& [group, summary] : m.summaries.items())
    if (group != "training" && group != "validation")
      out[group] = summary;
  if (auto i = m.summaries.find("training"); i != m.summaries.end())
    out["avg_metrics"] = *i;
  if (auto i = m.summaries.find("validation"); i != m.summaries.end())
    out["validation_metrics"] = *i;
  return out;
}

nlohmann::json trial_json(const state::trial_info& t) {
  nlohmann::json j{
      {"id", t.id},
      {"experimentId", t.experiment_id},
      {"hparams", t.hparams},
      {"restarts", t.restarts},
      {"startTime", rfc3339(t.created_at_us)},
      {"state", trial_state_name(t.status)},
      {"totalBatchesProcessed", t.metrics.steps_completed},
      {"taskId", state::task_id_of(t.experiment_id, t.id)},
      {"taskIds", state::trial_task_ids(t)},
  };
  if (auto w = metrics_workload(t.metrics.latest_validation,
                                t.metrics.steps_completed);
      !w.is_null())
    j["latestValidation"] = w;
  if (auto summary = summary_metrics_json(t.metrics); !summary.is_null())
    j["summaryMetrics"] = std::move(summary);
  if (t.metrics.best_validation)
    j["searcherMetricValue"] = *t.metrics.best_validation;
  int64_t checkpoint_total = 0;
  for (const auto& c : t.checkpoints)
    checkpoint_total += state::checkpoint_bytes(c);
  // An int64: a string in JSON, as upstream's.
  j["totalCheckpointSize"] = std::to_string(checkpoint_total);
  if (t.latest_checkpoint)
    j["bestCheckpoint"] = {
        {"uuid", t.latest_checkpoint->uuid},
        {"state", "STATE_COMPLETED"},
        {"totalBatches", t.latest_checkpoint->steps_completed},
        {"metadata", t.latest_checkpoint->metadata}};
  if (!t.end_reason.empty())
    j["runnerState"] = t.end_reason;
  if (ended(t.status))
    j["endTime"] = rfc3339(t.ended_at_us);
  if (!t.log_policy_matched.empty())
    j["logPolicyMatched"] = t.log_policy_matched;
  if (t.log_retention_days)
    j["logRetentionDays"] = *t.log_retention_days;
  if (!t.external_id.empty())
    j["externalTrialId"] = t.external_id;
  return j;
}

nlohmann::json experiments_response(const state::cluster_state& s) {
  auto list = nlohmann::json::array();
  for (const auto& [id, e] : s.experiments)
    list.push_back(experiment_json(s, e, experiment_detail::row));
  auto n = list.size();
  return {{"experiments", std::move(list)},
          {"pagination", pagination_of({}, static_cast<int64_t>(n))}};
}

nlohmann::json experiment_response(const state::cluster_state& s, int64_t id,
                                   const std::string& allocation_id) {
  auto e = state::find_experiment(s, id);
  if (e == nullptr)
    return nullptr;
  // Checkpoint-storage keys and other secrets are shown only to a trial of
  // this experiment (it needs them to save checkpoints).
  auto t = allocation_id.empty() ? nullptr
                                 : state::trial_of_allocation(s, allocation_id);
  bool own_trial = t != nullptr && t->experiment_id == id;
  return {{"experiment", experiment_json(s, *e)},
          {"config", own_trial ? effective_config(*e)
                               : conf::redact(effective_config(*e))}};
}

nlohmann::json trial_json(const state::cluster_state& s,
                          const state::trial_info& t) {
  auto j = trial_json(t);
  auto e = state::find_experiment(s, t.experiment_id);
  // The state counts the failure that ended the trial too (max_restarts
  // exhausted, or a log policy's cancel_retries); upstream errors the
  // trial without counting it.
  if (t.status == state::trial_status::errored && t.last_exit_reason == "failed"
      && t.restarts > 0)
    j["restarts"] = t.restarts - 1;
  // The checkpoint its experiment warm-starts from (searcher.source_*).
  if (e != nullptr)
    if (auto w = warm_start_checkpoint(s, e->config); w && *w)
      j["warmStartCheckpointUuid"] = (*w)->uuid;
  if (t.status != state::trial_status::pending
      && t.status != state::trial_status::exited)
    return j;
  // A trial waiting because its experiment is paused shows PAUSED, as
  // does an unmanaged trial its client has not started.
  if (e != nullptr
      && (e->status == state::experiment_status::paused || e->unmanaged))
    j["state"] = "STATE_PAUSED";
  if (t.status != state::trial_status::pending || e == nullptr || e->unmanaged)
    return j;
  auto p = e == nullptr ? nullptr : state::find_pool(s, e->pool);
  if (p != nullptr && p->consecutive_launch_failures > 0)
    j["pendingReason"] = "waiting for an instance of pool '" + e->pool
                         + "': the last launch failed ("
                         + p->last_launch_error_kind
                         + "): " + p->last_launch_error;
  return j;
}

nlohmann::json trials_response(const state::cluster_state& s, int64_t id) {
  if (state::find_experiment(s, id) == nullptr)
    return nullptr;
  auto list = nlohmann::json::array();
  for (auto t : state::listed_trials_of(s, id))
    list.push_back(trial_json(s, *t));
  auto n = list.size();
  return {{"trials", std::move(list)},
          {"pagination", pagination_of({}, static_cast<int64_t>(n))}};
}

nlohmann::json trial_allocation(const state::cluster_state& s,
                                int64_t trial_id) {
  auto t = state::find_listed_trial(s, trial_id);
  if (t == nullptr)
    return nullptr;
  auto e = state::find_experiment(s, t->experiment_id);
  return {{"allocation_id", t->allocation ? t->allocation->id : ""},
          {"experiment_id", t->experiment_id},
          {"unmanaged", e != nullptr && e->unmanaged}};
}

nlohmann::json preemption_status(const state::cluster_state& s,
                                 const std::string& allocation_id) {
  auto t = state::trial_of_allocation(s, allocation_id);
  bool live = t != nullptr && t->allocation.has_value();
  bool preempt = live && t->allocation->preemption_requested;
  return {{"live", live}, {"preempt", preempt}};
}

namespace {} // namespace

std::string entrypoint_of(const state::cluster_state& s,
                          int64_t experiment_id) {
  auto e = state::find_experiment(s, experiment_id);
  if (e == nullptr)
    return "";
  auto ep = e->config.find("entrypoint");
  if (ep == e->config.end())
    return "";
  if (ep->is_string())
    return ep->get<std::string>();
  std::string out;
  if (ep->is_array())
    for (const auto& w : *ep)
      if (w.is_string())
        out += (out.empty() ? "" : " ")
               + util::shell_quote(w.get<std::string>(), true);
  return out;
}

nlohmann::json start_environment(const state::cluster_state& s,
                                 const start_order& o) {
  auto e = state::find_experiment(s, o.experiment_id);
  auto t = state::find_listed_trial(s, o.trial_id);
  if (e == nullptr || t == nullptr)
    return nullptr;
  nlohmann::json env = nlohmann::json::object();
  // environment_variables first (the list of the agent's slot type): the
  // DET_* values below win.
  auto agent = s.agents.find(o.agent_id);
  auto vars = conf::env_for_slot_type(
      e->config.value("environment", nlohmann::json::object())
          .value("environment_variables", nlohmann::json()),
      agent == s.agents.end() ? std::string{"cpu"} : agent->second.slot_type);
  for (const auto& text : vars)
    if (auto eq = text.find('='); eq != std::string::npos && eq > 0)
      env[text.substr(0, eq)] = text.substr(eq + 1);
  env["DET_TASK_ID"] = state::task_id_of(t->experiment_id, t->id);
  env["DET_USER"] = e->owner.empty() ? "determined" : e->owner;
  env["DET_TRIAL_RUN_ID"] = std::to_string(std::max<int64_t>(t->runs, 1));
  env["DET_TRIAL_SEED"] = std::to_string(t->id);
  env["DET_STEPS_COMPLETED"] =
      std::to_string(o.resume_from ? o.resume_from->steps_completed : 0);
  env["DET_EXPERIMENT_CONFIG"] = e->config.dump();
  return {{"entrypoint", entrypoint_of(s, o.experiment_id)}, {"env", env}};
}

nlohmann::json start_frame(const start_order& o, const nlohmann::json& info,
                           const start_context& ctx, const std::string& token) {
  nlohmann::json resume = nullptr;
  if (o.resume_from)
    resume = {{"uuid", o.resume_from->uuid},
              {"steps_completed", o.resume_from->steps_completed}};
  auto env = info.value("env", nlohmann::json::object());
  env["DET_SESSION_TOKEN"] = token;
  env["DET_MASTER"] = ctx.master_url;
  env["DET_CHECKPOINT_DIR"] = ctx.checkpoint_dir;
  env["DET_CLUSTER_ID"] = ctx.cluster_id;
  if (!ctx.cluster_uuid.empty())
    env["DET_CLUSTER_UUID"] = ctx.cluster_uuid;
  return {
      {"v", 1},
      {"type", "start"},
      {"allocation_id", o.allocation_id},
      {"trial_id", o.trial_id},
      {"experiment_id", o.experiment_id},
      {"slots", o.slots},
      {"hparams", o.hparams.is_null() ? nlohmann::json::object() : o.hparams},
      {"target_length", o.target_length},
      {"resume_from", resume},
      {"entrypoint", info.value("entrypoint", std::string{})},
      {"env", env}};
}

} // namespace det::api
