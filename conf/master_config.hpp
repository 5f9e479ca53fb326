#pragma once

// master.yaml -> master_config. The master reads its file once at start-up
// (cmd/det-master) and hands the parts to the actors; nothing here does I/O
// beyond load_master_config reading the file.
//
// Accepted layouts, so both older documented and current upstream master.yaml
// files load:
//  - resource_pools: [{pool_name, description, scheduler, provider, ...}]
//    (upstream); `provisioner:` is accepted for `provider:` in a pool;
//  - a top-level `provisioner:` without resource_pools (older documentation's
//    layout): it becomes the provider of one pool named "default";
//  - resource_manager: {scheduler, default_compute_resource_pool,
//    default_aux_resource_pool} (upstream), or those three at top level.
// Without resource_pools there is one static pool, "default".
//
// Defaults are filled into master_config::effective, the config as the
// master runs it; redact.hpp renders that for `det master config`.

#include "conf/checkpoint_storage.hpp"
#include "conf/cloudwatch_config.hpp"
#include "conf/kubernetes_config.hpp"
#include "conf/provider_config.hpp"
#include "conf/task_env.hpp"
#include "messages/errc.hpp"
#include "messages/priority.hpp"

#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace det::conf {

struct tls_config {
  std::string cert; ///< PEM file path
  std::string key;  ///< PEM file path
  bool enabled() const noexcept { return !cert.empty(); }
};

struct db_config {
  std::string host = "localhost";
  uint16_t port = 5432;
  std::string user = "postgres";
  std::string password; ///< secret
  std::string name = "determined";
  std::string ssl_mode = "disable";
  std::string ssl_root_cert;
  std::string url; ///< when set, replaces all of the above

  /// `url`, or "postgresql://user:password@host:port/name?sslmode=..."
  /// with user and password percent-encoded.
  std::string connection_url() const;
};

struct log_config {
  /// trace, debug, info, warn (warning), error, critical (fatal, panic):
  /// the names util/log's set_level() accepts.
  std::string level = "info";
  /// Colored levels when stderr is a terminal.
  bool color = true;
};

struct scheduler_config {
  std::string type = "priority"; ///< priority | fair_share
  bool preemption = false;       ///< always true for fair_share
  int64_t default_priority = det::default_priority; ///< 1 (highest) .. 99
  std::string fitting_policy = "best";              ///< best | worst
  bool allow_heterogeneous_fits = false;
};

struct resource_pool_config {
  std::string pool_name;
  std::string description;
  scheduler_config scheduler; ///< the cluster's, overridden per pool
  provider_config provider;   ///< type none = static agents
  int64_t max_aux_containers_per_agent = 100;
  std::chrono::milliseconds agent_reconnect_wait{std::chrono::seconds{25}};
  /// With the kubernetes resource manager: the pool's
  /// task_container_defaults pod spec for the slot type (null = none).
  nlohmann::json pod_spec;
  /// task_container_defaults.environment_variables of the pool (else of
  /// the master), by slot type.
  env_by_slot_type task_env;
};

struct master_config {
  uint16_t port = 8080; ///< 8443 by default when TLS is on
  tls_config tls;
  db_config db;
  std::string cluster_id;
  std::string cluster_name;
  std::string agent_token;           ///< secret; "" = agents need none
  std::string initial_user_password; ///< secret
  /// Largest model directory (decoded file contents) an experiment may
  /// bring; upstream's CLI stops at about 95 MiB.
  int64_t max_model_definition_bytes = 95LL << 20;
  std::chrono::milliseconds agent_reconnect_wait{std::chrono::seconds{25}};
  /// Both ends of an agent socket send a heartbeat this often; the master
  /// declares an agent disconnected after agent_missed_heartbeats intervals
  /// without a frame from it.
  std::chrono::milliseconds agent_heartbeat_interval{std::chrono::seconds{10}};
  int64_t agent_missed_heartbeats = 3;
  checkpoint_storage_config checkpoint_storage;
  log_config log;
  cloudwatch_config cloudwatch;
  scheduler_config scheduler;
  std::string default_compute_resource_pool = "default";
  std::string default_aux_resource_pool = "default";
  /// Refuse a job that can never fit instead of warning.
  bool launch_error = true;
  /// A notebook's idle timeout when its config sets none (upstream's
  /// `notebook_timeout`, seconds); 0: never.
  int64_t notebook_timeout_s = 0;
  /// A TensorBoard's idle timeout when its config sets none (upstream's
  /// `tensorboard_timeout`, seconds; 300 as upstream's default).
  int64_t tensorboard_timeout_s = 300;
  /// resource_manager.type: agent (det-agents, the default) or kubernetes.
  std::string resource_manager_type = "agent";
  kubernetes_rm_config kubernetes; ///< with type kubernetes
  std::vector<resource_pool_config> resource_pools;
  /// The whole config with defaults filled in (secrets included).
  nlohmann::json effective;

  /// The pool named `name`, or nullptr.
  const resource_pool_config* find_pool(std::string_view name) const;
};

/// Parses master.yaml text (YAML or JSON). On any problem, fails with
/// errc::invalid_argument listing every error, one per line, each naming
/// its field path ("resource_pools[1].provider.max_instances: ...").
[[nodiscard]] caf::expected<master_config>
parse_master_config(std::string_view text);

/// parse_master_config on the content of the file at `path`; errors are
/// prefixed with the path.
[[nodiscard]] caf::expected<master_config>
load_master_config(const std::string& path);

} // namespace det::conf
