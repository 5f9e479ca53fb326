#pragma once

// The API's assembly: from what the master's start-up made (the master
// actor, the read model, the runtimes that follow the log, the cluster's
// secrets and ids), the two contexts the server serves from, the routes'
// api_context and the agents' WebSocket context. Called once, before the
// server starts; the contexts are read-only afterwards.

#include "actors/master_actor.hpp"
#include "api/agent_ws.hpp"
#include "api/api_context.hpp"
#include "api/log_policy_runtime.hpp"
#include "api/webhook_runtime.hpp"
#include "conf/master_config.hpp"
#include "store/model_def_store.hpp"

#include <caf/actor_system.hpp>

#include <memory>
#include <string>

namespace det::api {

/// What start-up hands the API. Every pointer is set; `defs` is moved into
/// the model definition actor.
struct api_sources {
  master_actor master;
  std::shared_ptr<const conf::master_config> config;
  std::shared_ptr<read::read_model> reads;
  std::shared_ptr<read::metrics_history> history;
  std::unique_ptr<model_def_store> defs;
  std::shared_ptr<trial_logs> logs;
  std::shared_ptr<task_logs> task_log_book;
  std::shared_ptr<auth_directory> auth;
  std::shared_ptr<webhook_runtime> webhooks;
  std::shared_ptr<log_policy_runtime> log_policies;
  std::string session_secret;
  /// master.yaml's cluster id (task names, tags) and the log's UUID
  /// (/api/v1/master's clusterId, the harness's storage paths).
  std::string cluster_id;
  std::string cluster_uuid;
  std::string master_uuid;
  std::string db_url;
  /// Where trials keep checkpoints on shared_fs (the start frames say).
  std::string checkpoint_dir;
};

struct api_wiring {
  std::shared_ptr<api_context> routes;
  std::shared_ptr<agent_ws_context> agents;
  std::shared_ptr<const session_tokens> tokens;
};

/// Builds both contexts into `out` on `sys` (spawning the bridge and the
/// model definition actor), connects the webhook and log-policy runtimes
/// to the master and to the trials' log lines, starts the webhook sender,
/// and makes the users every cluster has. Returns "" or, when those users
/// cannot be made, the reason to log; `out` is filled either way, so that
/// the caller's one clean-up ends the actors spawned here.
std::string wire_api(caf::actor_system& sys, api_sources in, api_wiring& out);

} // namespace det::api
