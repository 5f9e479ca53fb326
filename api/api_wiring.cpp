#include "api/api_wiring.hpp"

#include "actors/experiment_creation_actor.hpp"
#include "actors/model_def_actor.hpp"
#include "api/api_auth.hpp"
#include "api/log_reader.hpp"
#include "conf/capacity.hpp"
#include "conf/experiment_config.hpp"

#include <caf/send.hpp>

namespace det::api {

namespace {

/// The routes' context: the actors they ask, the books beside the log and
/// what master.yaml decides for them.
std::shared_ptr<api_context> routes_context(caf::actor_system& sys,
                                            api_sources& in) {
  const auto& cfg = *in.config;
  auto ctx = std::make_shared<api_context>();
  ctx->master = in.master;
  ctx->reads = in.reads;
  ctx->history = in.history;
  ctx->bridge = spawn_api_bridge(sys);
  ctx->model_defs = spawn_model_def_actor(sys, std::move(in.defs));
  ctx->experiment_creation = spawn_experiment_creation_actor(
      sys, in.master, ctx->model_defs, ctx->request_timeout);
  ctx->logs = in.logs;
  ctx->task_log_book = in.task_log_book;
  ctx->auth = in.auth;
  ctx->config = in.config;
  ctx->experiment_defaults = conf::experiment_defaults_from(cfg);
  for (const auto& pool : cfg.resource_pools)
    if (auto cap = conf::max_capacity(pool))
      ctx->pool_capacities.emplace(pool.pool_name, *cap);
  ctx->cluster_id = in.cluster_uuid;
  ctx->master_id = in.master_uuid;
  // Upstream's clusterName: the configured cluster_name, "" when unset.
  ctx->cluster_name = cfg.cluster_name;
  ctx->db_url = in.db_url;
  if (!ctx->db_url.empty())
    ctx->metric_reader = std::make_shared<log_reader>(ctx->db_url);
  ctx->inspect_reader = std::make_shared<log_reader>(ctx->db_url);
  ctx->simulate_reader = std::make_shared<log_reader>(ctx->db_url);
  ctx->webhooks = in.webhooks;
  return ctx;
}

/// The agents' WebSocket context: what a start frame tells a trial about
/// the master, and how long an agent may stay silent.
std::shared_ptr<agent_ws_context> agents_context(caf::actor_system& sys,
                                                 const api_sources& in,
                                                 const api_context& ctx) {
  const auto& cfg = *in.config;
  auto ws = std::make_shared<agent_ws_context>();
  ws->sys = &sys;
  ws->master = in.master;
  ws->logs = in.logs;
  ws->task_log_book = in.task_log_book;
  ws->addresses = ctx.agent_addresses;
  ws->tokens = ctx.tokens;
  auto scheme = cfg.tls.enabled() ? "https" : "http";
  auto local_url =
      std::string{scheme} + "://127.0.0.1:" + std::to_string(cfg.port);
  ws->start = {local_url, in.checkpoint_dir, in.cluster_id, in.cluster_uuid};
  ws->agent_token = cfg.agent_token;
  ws->heartbeat_interval = cfg.agent_heartbeat_interval;
  ws->missed_heartbeats = static_cast<int>(cfg.agent_missed_heartbeats);
  return ws;
}

} // namespace

std::string wire_api(caf::actor_system& sys, api_sources in, api_wiring& out) {
  out.tokens = std::make_shared<const session_tokens>(in.session_secret);
  out.routes = routes_context(sys, in);
  out.routes->tokens = out.tokens;
  out.agents = agents_context(sys, in, *out.routes);
  // Record commands the runtimes decide to send (no answer awaited).
  auto to_master = [master = in.master](command c) {
    caf::anon_send(master, std::move(c));
  };
  in.webhooks->set_command_sink(to_master);
  in.log_policies->set_command_sink(to_master);
  in.logs->set_observer(
      [webhooks = in.webhooks,
       log_policies = in.log_policies](int64_t trial, const std::string& agent,
                                       const std::vector<std::string>& lines) {
        webhooks->scan_log(trial, agent, lines);
        log_policies->scan_log(trial, agent, lines);
      });
  in.webhooks->start();
  return ensure_default_users(sys, *out.routes,
                              in.config->initial_user_password);
}

} // namespace det::api
