#include "api/queue_routes.hpp"

#include "api/api_records.hpp"
#include "api/route_util.hpp"
#include "api/task_access.hpp"
#include "api/views.hpp"
#include "api/views_cluster.hpp"
#include "core/experiments_parse.hpp"
#include "http/grpc_error.hpp"
#include "state/queries.hpp"
#include "util/text.hpp"

#include <caf/event_based_actor.hpp>

#include <algorithm>

namespace det::api {

using json = nlohmann::json;

namespace {

std::string wait_reason(const state::cluster_state& s,
                        const state::experiment_info& e, int64_t pending,
                        int64_t pool_free) {
  if (pending == 0)
    return "";
  auto p = state::find_pool(s, e.pool);
  if (p == nullptr)
    return "pool '" + e.pool + "' does not exist";
  if (p->consecutive_launch_failures > 0)
    return "waiting for an instance: the last launch failed ("
           + p->last_launch_error_kind + "): " + p->last_launch_error;
  if (e.model_definition_pending)
    return "its model definition is being stored";
  if (pool_free < e.slots_per_trial) {
    if (!p->config.provider.empty() && p->config.provider != "static")
      return std::to_string(pending) + " trial(s) wait for "
             + std::to_string(e.slots_per_trial)
             + " slot(s) each; the pool has " + std::to_string(pool_free)
             + " free and launches instances (at most "
             + std::to_string(p->config.max_instances) + ")";
    return std::to_string(pending) + " trial(s) wait for "
           + std::to_string(e.slots_per_trial) + " slot(s) each; the pool has "
           + std::to_string(pool_free) + " free";
  }
  return std::to_string(pending)
         + " trial(s) wait for the scheduler's next pass";
}

/// A live task's job (commands, notebooks, shells, TensorBoards, generic
/// tasks): one allocation of its slots, never preempted.
json task_job(const state::cluster_state& s, const state::task_info& t,
              int64_t ahead) {
  bool holds = state::holds_allocation(t);
  std::string why;
  if (!holds) {
    auto free = state::free_slots_of_pool(s, t.pool);
    why = free < t.slots
              ? "it waits for " + std::to_string(t.slots)
                    + " slot(s); the pool has " + std::to_string(free) + " free"
              : "it waits for the scheduler's next pass";
  }
  return {{"jobId", t.id},
          {"type", "TYPE_" + t.task_type},
          {"entityId", t.id},
          {"name", t.description},
          {"username", t.owner},
          {"resourcePool", t.pool},
          {"priority", t.priority},
          {"weight", t.weight},
          {"isPreemptible", false},
          {"workspaceId", t.workspace_id},
          {"submissionTime", rfc3339(t.launched_at_us)},
          {"progress", 0},
          {"allocatedSlots", holds ? t.slots : 0},
          {"requestedSlots", t.slots},
          {"summary",
           {{"state", holds ? "STATE_SCHEDULED" : "STATE_QUEUED"},
            {"jobsAhead", ahead}}},
          {"waitReason", why}};
}

json jobs_response(const state::cluster_state& s, const std::string& pool,
                   page pg) {
  // Experiments and tasks in one queue per pool, as the scheduler orders
  // them: by priority, then submission.
  struct entry {
    const std::string* pool;
    int64_t priority;
    int64_t at_us;
    const state::experiment_info* experiment;
    const state::task_info* task;
  };
  std::vector<entry> jobs;
  // A paused experiment asks for no slots, so it is not in the queue (as
  // upstream's job list leaves it out); its job is back when it resumes.
  // An unmanaged one never asks for any.
  for (const auto& [id, e] : s.experiments)
    if (!state::is_terminal(e.status) && !e.unmanaged
        && e.status != state::experiment_status::paused
        && (pool.empty() || e.pool == pool))
      jobs.push_back({&e.pool, e.priority, e.submitted_at_us, &e, nullptr});
  // A paused generic task holds and asks for nothing, as a paused
  // experiment.
  for (const auto& [id, t] : s.tasks)
    if (t.state != state::task_state::terminated
        && (pool.empty() || t.pool == pool))
      jobs.push_back({&t.pool, t.priority, t.launched_at_us, nullptr, &t});
  std::stable_sort(jobs.begin(), jobs.end(), [](const auto& a, const auto& b) {
    if (*a.pool != *b.pool)
      return *a.pool < *b.pool;
    if (a.priority != b.priority)
      return a.priority < b.priority;
    return a.at_us < b.at_us;
  });
  json list = json::array();
  std::map<std::string, int64_t> ahead;
  for (const auto& job : jobs) {
    if (job.task != nullptr) {
      list.push_back(task_job(s, *job.task, ahead[*job.pool]++));
      continue;
    }
    const auto* e = job.experiment;
    int64_t allocated = 0;
    int64_t pending = 0;
    int64_t live_trials = 0;
    for (auto t : state::listed_trials_of(s, e->id)) {
      if (state::is_terminal(t->status))
        continue;
      ++live_trials;
      if (t->allocation)
        for (const auto& as : t->allocation->assignments)
          allocated += static_cast<int64_t>(as.slots.size());
      else if (t->status == state::trial_status::pending)
        ++pending;
    }
    auto st = allocated > 0 ? "STATE_SCHEDULED" : "STATE_QUEUED";
    auto& n = ahead[e->pool];
    json j{{"jobId", "exp-" + std::to_string(e->id)},
           {"type", "TYPE_EXPERIMENT"},
           {"entityId", std::to_string(e->id)},
           {"name", e->config.value("name", std::string{"Experiment"})},
           {"username", e->owner},
           {"resourcePool", e->pool},
           {"priority", e->priority},
           {"weight", e->weight},
           {"isPreemptible", true},
           {"workspaceId", 1},
           {"submissionTime", rfc3339(e->submitted_at_us)},
           {"progress", e->progress},
           {"allocatedSlots", allocated},
           {"requestedSlots", live_trials * e->slots_per_trial},
           {"pendingTrials", pending},
           {"summary", {{"state", st}, {"jobsAhead", n}}},
           {"waitReason", wait_reason(s, *e, pending,
                                      state::free_slots_of_pool(s, e->pool))}};
    ++n;
    list.push_back(std::move(j));
  }
  return paginate("jobs", std::move(list), pg);
}

/// One update of POST /api/v1/job-queues: experiment N's (`exp-N`)
/// resources, or a task's (its id) new priority.
struct job_update {
  int64_t experiment = 0;
  std::string task;
  resources_edit resources;
  int32_t task_priority = 0;
};

/// `u` checked: `exp-N` or a task id and the fields to change. Queue
/// moves (aheadOf/behindOf) and pool changes are refused naming the
/// field, and a task's weight (it has no way to change).
std::optional<job_update> queue_update(const json& u, size_t i,
                                       const http::responder& res) {
  auto at = "updates[" + std::to_string(i) + "]";
  auto refuse = [&](const std::string& why) {
    res.send_error(http::grpc_code::invalid_argument, at + "." + why);
    return std::nullopt;
  };
  if (!u.is_object())
    return refuse("expected an object");
  auto job = u.value("jobId", json{});
  std::string id = job.is_string() ? job.get<std::string>() : "";
  auto n = id.rfind("exp-", 0) == 0 ? positive_id(id.substr(4)) : std::nullopt;
  auto task = n ? std::nullopt : task_id_text(id);
  if (!n && !task)
    return refuse("jobId: '" + util::fit_text(id, {64, false, true})
                  + "' is not a job of this master (exp-<experiment id> or "
                    "a task id)");
  json resources = json::object();
  for (const auto& [k, v] : u.items()) {
    if (k == "jobId" || v.is_null())
      continue;
    if (k == "weight" && task)
      return refuse("weight: a task's weight does not change; give priority");
    if (k == "priority" || k == "weight")
      resources[k] = v;
    else if (k == "aheadOf" || k == "behindOf" || k == "resourcePool")
      return refuse(k
                    + ": moving a job in the queue or to another pool is "
                      "not supported by this master; change its priority");
    else
      return refuse(k + ": not a field of a queue update");
  }
  if (resources.empty())
    return refuse("nothing to change: give priority or weight");
  if (task) {
    auto p = resources["priority"];
    if (!p.is_number_integer() || p.get<int64_t>() < 1 || p.get<int64_t>() > 99)
      return refuse("priority: expected a whole number from 1 to 99");
    return job_update{0, *task, {}, p.get<int32_t>()};
  }
  auto checked = parse_resources_edit(resources, at);
  if (!checked) {
    fail(res, checked.error());
    return std::nullopt;
  }
  return job_update{*n, "", *checked, 0};
}

/// Runs `updates` one after the other (each durable before the next);
/// the first refusal answers and stops.
void run_updates(const std::shared_ptr<const api_context>& ctx,
                 std::shared_ptr<std::vector<job_update>> updates, size_t i,
                 http::http_request req, http::responder res) {
  if (i == updates->size())
    return res.send_json("{}");
  const auto& u = (*updates)[i];
  auto next = [ctx, updates, i, req, res] {
    run_updates(ctx, updates, i + 1, req, res);
  };
  if (!u.task.empty()) // its owner or an admin, as its set_priority
    return with_owned_task(ctx, req, res, u.task, "", [=] {
      send_command(
          ctx, res,
          task_priority_change{u.task, u.task_priority, req.principal.username},
          [next](caf::event_based_actor*, json) { next(); });
    });
  experiment_edit edit;
  edit.experiment_id = u.experiment;
  edit.resources = u.resources;
  edit.username = req.principal.username;
  send_command(ctx, res, std::move(edit),
               [next](caf::event_based_actor*, json) { next(); });
}

/// GET /api/v1/job-queues (`v2`: each job under "full").
void list_jobs(const route_ctx& ctx, const http::http_request& req,
               const http::responder& res, bool v2) {
  auto p = page_of(req, res);
  if (!p)
    return;
  auto pool = req.query.get("resourcePool").value_or("");
  bool desc = req.query.get("orderBy").value_or("") == "ORDER_BY_DESC";
  answer_view(
      ctx, req, res,
      [pool, p = *p, v2, desc](const state::cluster_state& s, int64_t) {
        auto j = jobs_response(s, pool, p);
        if (desc)
          std::reverse(j["jobs"].begin(), j["jobs"].end());
        if (v2) // GetJobsV2: each job under "full" (no RBAC here).
          for (auto& job : j["jobs"])
            job = json{{"full", std::move(job)}};
        return j;
      },
      "");
}

void get_jobs(const route_ctx& ctx, const http::http_request& req,
              const http::responder& res) {
  list_jobs(ctx, req, res, false);
}

void get_jobs_v2(const route_ctx& ctx, const http::http_request& req,
                 const http::responder& res) {
  list_jobs(ctx, req, res, true);
}

void update_jobs(const route_ctx& ctx, const http::http_request& req,
                 const http::responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto u = body->find("updates");
  if (u == body->end() || !u->is_array() || u->empty() || u->size() > 1000)
    return res.send_error(http::grpc_code::invalid_argument,
                          "updates: expected a list of 1 to 1000 "
                          "queue updates");
  auto updates = std::make_shared<std::vector<job_update>>();
  for (size_t i = 0; i < u->size(); ++i) {
    auto one = queue_update((*u)[i], i, res);
    if (!one)
      return;
    updates->push_back(std::move(*one));
  }
  http::http_request who;
  who.principal = req.principal;
  run_updates(ctx, updates, 0, who, res);
}

} // namespace

const route_family& queue_routes() {
  static const route_family family{
      "queue_routes",
      {"/api/v1/job-queues", "/api/v1/job-queues-v2"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/job-queues", &get_jobs, access::signed_in},
          {"GET",    "/api/v1/job-queues-v2", &get_jobs_v2, access::signed_in},
          // A task's owner or an admin, an experiment's editor: decided
          // per update, after the body's checks.
          {"POST",   "/api/v1/job-queues", &update_jobs, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
