#pragma once

// How allocations become running processes, behind one interface as
// upstream keeps rm/agentrm beside rm/kubernetesrm: det-agents (agent_rm:
// the local and aws pools' provisioners; agents connect over the API's
// WebSocket) or Kubernetes Jobs (kubernetes_rm: one virtual agent per
// pool). The master's main makes one from master.yaml's
// resource_manager.type and drives it through three calls, on its own
// thread, in this order:
//
//   attach_api(ctx)  before the routes are registered: what the API shows
//                    of this manager (Kubernetes: the nodes as agents);
//   start(ctx)       once the API serves (its port is known); blocking for
//                    its first calls; an error names what failed;
//   stop()           at shutdown, or after any failed step, whether start
//                    ran or not: ends what start began and joins its
//                    threads while the actor system still runs. Idempotent.

#include "actors/master_actor.hpp"
#include "api/codec.hpp"
#include "api/task_logs.hpp"
#include "api/trial_logs.hpp"
#include "conf/env_overrides.hpp"
#include "conf/master_config.hpp"

#include <caf/actor_system.hpp>
#include <caf/error.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace det::api {
struct api_context;
}

namespace det::rm {

/// What the master hands a resource manager once it serves.
struct rm_context {
  caf::actor_system* sys = nullptr;
  master_actor master;
  std::shared_ptr<api::trial_logs> logs;
  /// Tasks' output (a Kubernetes task pod's log goes there).
  std::shared_ptr<api::task_logs> task_logs;
  std::shared_ptr<const api::session_tokens> tokens;
  std::string cluster_id;
  /// The cluster's uuid (GET /info's cluster_id).
  std::string cluster_uuid;
  /// The event log's database (the cluster's secrets live there).
  std::string db_url;
  std::string scheme = "http"; ///< http | https, as the API serves
  uint16_t port = 0;           ///< the port the API serves on
  /// det-agent's folder (local pools start det-agent processes from it).
  std::string bin_dir;
};

class resource_manager {
public:
  virtual ~resource_manager() = default;
  virtual void attach_api(api::api_context& ctx) = 0;
  [[nodiscard]] virtual caf::error start(const rm_context& ctx) = 0;
  virtual void stop() = 0;
};

/// The manager of cfg.resource_manager_type ("agent" or "kubernetes"),
/// not started. `cfg` is the final config (agent_token filled in); `env`
/// the master's environment overrides it takes its tunables from.
std::unique_ptr<resource_manager>
make_resource_manager(const conf::master_config& cfg,
                      const conf::master_env& env);

} // namespace det::rm
