#include "api/queue_routes.hpp"

#include "api/route_util.hpp"
#include "api/views.hpp"
#include "api/views_cluster.hpp"
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

json jobs_response(const state::cluster_state& s, const std::string& pool,
                   page pg) {
  std::vector<const state::experiment_info*> live;
  // A paused experiment asks for no slots, so it is not in the queue (as
  // upstream's job list leaves it out); its job is back when it resumes.
  // An unmanaged one never asks for any.
  for (const auto& [id, e] : s.experiments)
    if (!state::is_terminal(e.status) && !e.unmanaged
        && e.status != state::experiment_status::paused
        && (pool.empty() || e.pool == pool))
      live.push_back(&e);
  std::stable_sort(live.begin(), live.end(), [](auto a, auto b) {
    if (a->pool != b->pool)
      return a->pool < b->pool;
    if (a->priority != b->priority)
      return a->priority < b->priority;
    return a->submitted_at_us < b->submitted_at_us;
  });
  json list = json::array();
  std::map<std::string, int64_t> ahead;
  for (auto e : live) {
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

/// One update of POST /api/v1/job-queues: `exp-N` and the fields to
/// change, as the PATCH of experiment N's resources. Queue moves
/// (aheadOf/behindOf) and pool changes are refused naming the field.
std::optional<std::pair<int64_t, json>>
queue_update(const json& u, size_t i, const http::responder& res) {
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
  if (!n)
    return refuse("jobId: '" + util::fit_text(id, {64, false, true})
                  + "' is not a job of this master (exp-<experiment id>)");
  json resources = json::object();
  for (const auto& [k, v] : u.items()) {
    if (k == "jobId" || v.is_null())
      continue;
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
  return std::pair{*n, json{{"resources", resources}}};
}

/// Runs `updates` one after the other (each durable before the next);
/// the first refusal answers and stops.
void run_updates(const std::shared_ptr<const api_context>& ctx,
                 std::shared_ptr<std::vector<std::pair<int64_t, json>>> updates,
                 size_t i, std::string user, http::responder res) {
  if (i == updates->size())
    return res.send_json("{}");
  post(ctx->bridge, [ctx, updates, i, user, res](caf::event_based_actor* self) {
    const auto& [id, patch] = (*updates)[i];
    self->request(ctx->master, ctx->request_timeout, edit_atom::value, id,
                  patch.dump(), user)
        .then(
            [ctx, updates, i, user, res](caf::ok_atom) {
              run_updates(ctx, updates, i + 1, user, res);
            },
            [res](caf::error& err) { res.send(http::error_response(err)); });
  });
}

} // namespace

void add_job_routes(http::router& r, std::shared_ptr<const api_context> ctx) {
  auto list = [ctx](bool v2) {
    return [ctx, v2](http::http_request req, http::responder res) {
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
    };
  };
  r.get("/api/v1/job-queues", list(false));
  r.get("/api/v1/job-queues-v2", list(true));
  r.post("/api/v1/job-queues", [ctx](http::http_request req,
                                     http::responder res) {
    auto body = json_body(req, res);
    if (!body)
      return;
    auto u = body->find("updates");
    if (u == body->end() || !u->is_array() || u->empty() || u->size() > 1000)
      return res.send_error(http::grpc_code::invalid_argument,
                            "updates: expected a list of 1 to 1000 "
                            "queue updates");
    auto updates = std::make_shared<std::vector<std::pair<int64_t, json>>>();
    for (size_t i = 0; i < u->size(); ++i) {
      auto one = queue_update((*u)[i], i, res);
      if (!one)
        return;
      updates->push_back(std::move(*one));
    }
    run_updates(ctx, updates, 0, req.principal.username, res);
  });
}

} // namespace det::api
