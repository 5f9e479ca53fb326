#include "api/queue_routes.hpp"

#include "api/route_util.hpp"
#include "api/views.hpp"
#include "api/views_cluster.hpp"
#include "state/queries.hpp"

#include <algorithm>

namespace det::api {

namespace {

using json = nlohmann::json;

std::string wait_reason(const state::cluster_state& s,
                        const state::experiment_info& e, int64_t pending,
                        int64_t pool_free) {
  if (e.status == state::experiment_status::paused)
    return "paused";
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
  for (const auto& [id, e] : s.experiments)
    if (!state::is_terminal(e.status) && (pool.empty() || e.pool == pool))
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
    for (auto t : state::trials_of_experiment(s, e->id)) {
      if (state::is_terminal(t->status))
        continue;
      ++live_trials;
      if (t->allocation)
        for (const auto& as : t->allocation->assignments)
          allocated += static_cast<int64_t>(as.slots.size());
      else if (t->status == state::trial_status::pending)
        ++pending;
    }
    bool paused = e->status == state::experiment_status::paused;
    auto st = paused          ? "STATE_PAUSED"
              : allocated > 0 ? "STATE_SCHEDULED"
                              : "STATE_QUEUED";
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
           {"submissionTime", rfc3339(e->submitted_at_us)},
           {"progress", e->progress},
           {"allocatedSlots", allocated},
           {"requestedSlots", live_trials * e->slots_per_trial},
           {"pendingTrials", pending},
           {"summary", {{"state", st}, {"jobsAhead", paused ? 0 : n}}},
           {"waitReason", wait_reason(s, *e, pending,
                                      state::free_slots_of_pool(s, e->pool))}};
    if (!paused)
      ++n;
    list.push_back(std::move(j));
  }
  return paginate("jobs", std::move(list), pg);
}

} // namespace

void add_job_routes(http::router& r, std::shared_ptr<const api_context> ctx) {
  r.get("/api/v1/job-queues",
        [ctx](http::http_request req, http::responder res) {
          auto p = page_of(req, res);
          if (!p)
            return;
          auto pool = req.query.get("resourcePool").value_or("");
          answer_view(
              ctx, req, res,
              [pool, p = *p](const state::cluster_state& s, int64_t) {
                return jobs_response(s, pool, p);
              },
              "");
        });
}

} // namespace det::api
