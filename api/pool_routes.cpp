// The pools' routes: the list (GET /api/v1/resource-pools) and "what would
// it cost" (POST /api/v1/resource-pools/{pool}/simulate), and the pool
// family's table at the end (api/pool_routes.hpp).

#include "api/pool_routes.hpp"

#include "api/api_auth.hpp"
#include "api/log_reader.hpp"
#include "api/route_util.hpp"
#include "api/views_cluster.hpp"
#include "http/grpc_error.hpp"
#include "sim/compare.hpp"
#include "sim/log_trace.hpp"
#include "sim/master_yaml.hpp"
#include "util/text.hpp"

#include <cmath>

namespace det::api {

using http::grpc_code;
using http::http_request;
using http::responder;
using nlohmann::json;

namespace {

/// What a simulate request asks: the fleet's changes and the policies.
struct simulate_request {
  std::optional<int64_t> idle_s;
  std::optional<int64_t> max_instances;
  std::optional<int64_t> gpus_per_instance;
  std::optional<double> price_per_hour;
  std::optional<int64_t> boot_s;
  std::vector<std::string> policies;
};

/// A whole number in [lo, hi] at body[key], or `why` names the field.
bool whole(const json& body, const char* key, int64_t lo, int64_t hi,
           std::optional<int64_t>& out, std::string& why) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null())
    return true;
  if (it->is_number_integer() || it->is_number_unsigned()) {
    auto v = it->get<int64_t>();
    if (v >= lo && v <= hi) {
      out = v;
      return true;
    }
  }
  why = std::string{key} + ": expected a whole number from "
        + std::to_string(lo) + " to " + std::to_string(hi);
  return false;
}

bool parse(const json& body, simulate_request& r, std::string& why) {
  static const char* known[] = {"idleSeconds",     "maxInstances",
                                "gpusPerInstance", "pricePerHour",
                                "bootSeconds",     "policies"};
  for (const auto& [k, v] : body.items()) {
    bool ok = false;
    for (const auto* name : known)
      ok = ok || k == name;
    if (!ok) {
      why = "unknown field '" + util::printable_excerpt(k, 64)
            + "'; known: idleSeconds, maxInstances, gpusPerInstance, "
              "pricePerHour, bootSeconds, policies";
      return false;
    }
  }
  if (!whole(body, "idleSeconds", 0, 30 * 86400, r.idle_s, why)
      || !whole(body, "maxInstances", 1, 100000, r.max_instances, why)
      || !whole(body, "gpusPerInstance", 1, 64, r.gpus_per_instance, why)
      || !whole(body, "bootSeconds", 0, 3600, r.boot_s, why))
    return false;
  if (auto p = body.find("pricePerHour"); p != body.end() && !p->is_null()) {
    if (!p->is_number() || !std::isfinite(p->get<double>())
        || p->get<double>() < 0 || p->get<double>() > 1000) {
      why = "pricePerHour: expected a number from 0 to 1000";
      return false;
    }
    r.price_per_hour = p->get<double>();
  }
  if (auto p = body.find("policies"); p != body.end() && !p->is_null()) {
    if (!p->is_array() || p->empty()
        || p->size() > sim::policy_names().size()) {
      why = "policies: expected a list of 1 to "
            + std::to_string(sim::policy_names().size()) + " policy names";
      return false;
    }
    for (const auto& name : *p) {
      if (!name.is_string() || !sim::policy_named(name.get<std::string>(), 0)) {
        why = "policies: unknown policy "
              + util::printable_excerpt(
                  name.is_string() ? name.get<std::string>() : name.dump(), 64)
              + "; known: " + sim::joined(sim::policy_names());
        return false;
      }
      r.policies.push_back(name.get<std::string>());
    }
  }
  return true;
}

/// The run of `r` over the jobs of `pool` in `log`: the answer's JSON.
caf::expected<json> run(event_store& log, const conf::master_config& cfg,
                        const std::string& pool, const simulate_request& r) {
  sim::sim_config c;
  sim::policy_spec ours;
  std::string why;
  if (!sim::config_from_master(cfg, pool, c, ours, why))
    return make_error(errc::invalid_argument, why);
  if (r.idle_s)
    ours.idle_s = *r.idle_s;
  if (r.max_instances)
    c.max_instances = static_cast<int>(*r.max_instances);
  if (r.gpus_per_instance)
    c.gpus_per_instance = static_cast<int>(*r.gpus_per_instance);
  if (r.price_per_hour)
    c.price_per_hour = *r.price_per_hour;
  if (r.boot_s)
    c.boot_s = static_cast<double>(*r.boot_s);
  std::vector<sim::policy_spec> specs;
  if (r.policies.empty())
    specs = sim::standard_policies(ours.idle_s);
  for (const auto& name : r.policies)
    specs.push_back(*sim::policy_named(name, ours.idle_s));
  sim::trace t;
  if (auto err = sim::jobs_from_log(log, pool, t))
    return err;
  auto out = sim::compare(t.jobs, c, specs, "resource pool " + pool, true);
  return json{{"pool", pool},
              {"bounds", out.head},
              {"runs", out.runs},
              {"svg", out.svg}};
}

void get_pools(const ctx_ptr& ctx, const http_request& req,
               const responder& res) {
  if (auto p = page_of(req, res))
    answer_view(
        ctx, req, res,
        [p = *p, def = ctx->config->default_compute_resource_pool](
            const state::cluster_state& s, int64_t) {
          return resource_pools_response(s, def, p);
        },
        "");
}

/// Admins only: the table's row checks it first.
void simulate_pool(const ctx_ptr& ctx, const http_request& req,
                   const responder& res) {
  auto pool = req.param("pool");
  if (ctx->config->find_pool(pool) == nullptr)
    return res.send_error(grpc_code::not_found,
                          "resource pool " + util::printable_excerpt(pool, 64)
                              + " not found");
  auto body = json_body(req, res);
  if (!body)
    return;
  simulate_request sr;
  std::string why;
  if (!parse(*body, sr, why))
    return res.send_error(grpc_code::invalid_argument, why);
  if (!ctx->simulate_reader)
    return res.send_error(grpc_code::unavailable, "no event log to read");
  bool queued = ctx->simulate_reader->submit(
      [res, cfg = ctx->config, pool, sr](event_store* log,
                                         const caf::error& err) {
        if (log == nullptr)
          return res.send(http::error_response(err));
        auto out = run(*log, *cfg, pool, sr);
        if (!out)
          return res.send(http::error_response(out.error()));
        res.send_json(out->dump());
      });
  if (!queued)
    res.send_error(grpc_code::unavailable,
                   "too many simulations waiting; try again");
}

} // namespace

const route_family& pool_routes() {
  static const route_family family{
      "pool_routes",
      {"/api/v1/resource-pools"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // A pool's workspace bindings are the workspace family's
          // (its prefix is the longer).
          // clang-format off
          {"GET",    "/api/v1/resource-pools", &get_pools, access::signed_in},
          {"POST",   "/api/v1/resource-pools/{pool}/simulate", &simulate_pool, access::admin},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
