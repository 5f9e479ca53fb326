#pragma once

// The kubernetes resource manager's pools (rm/kubernetes_rm.hpp), internal
// to rm/: the options the manager is started with, one pool's bridge
// between its virtual agent's actor and its Job runner, and that agent's
// connection (rm/k8s_pool_agent.cpp). A trial's or task's start becomes a
// ConfigMap holding its start frame plus a Job whose pods run `det-agent
// --run-allocation` (agent/run_allocation.hpp); a kill becomes a
// Background delete.

#include "actors/agent_actor.hpp"
#include "api/api_context.hpp"
#include "api/views.hpp"
#include "k8s/job_runner.hpp"
#include "rm/k8s_nodes.hpp"
#include "rm/resource_manager.hpp"

#include <caf/event_based_actor.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace det::rm {

struct kubernetes_rm_options {
  /// What the master handed the manager (its actors, logs and tokens).
  rm_context rm;
  /// master_url here is the one pods reach (task_master_url).
  api::start_context start;
  /// DET_K8S_SA_DIR (conf/env_overrides.hpp); "" = the default folder.
  std::string sa_dir;
  /// Bound to the node watch once started (the API's nodes as agents).
  std::shared_ptr<node_agents_handle> nodes;
};

/// One pool's virtual agent: the runner and the agent actor it reports to.
struct pool_bridge {
  std::string pool;
  std::string agent_id;
  std::unique_ptr<k8s::job_runner> runner;
  std::mutex mu;
  agent_actor agent;
  /// The agent actor's connection (it holds this bridge, which holds the
  /// agent, which holds it: only an exit ends the three).
  caf::actor connection;
  std::set<std::string> running_sent;
  /// Allocation -> trial, for scheduler messages in the trial's logs.
  std::map<std::string, int64_t> trials;
  /// Allocation -> task, for scheduler messages in the task's logs.
  std::map<std::string, std::string> tasks;
  std::weak_ptr<node_watch> nodes;
  int64_t max_slots_per_pod = 1;
};

/// The slots each pod of an allocation of `slots` asks for.
int64_t slots_per_pod(int64_t slots, int64_t max_slots_per_pod);

/// The task of a task's allocation "<task id>.<n>" (a task id is a UUID;
/// a trial's allocation "<trial>.<run>" is all digits): "" for a trial's.
std::string task_of(const std::string& alloc);

/// The agent actor's connection of pool `b`: orders -> Kubernetes calls
/// (through the runner, which never blocks this actor). `slot_type` is
/// the manager's (gpu | cpu); `cluster_name` keys workspaces' namespace
/// bindings.
caf::behavior pool_connection(caf::event_based_actor* self,
                              std::shared_ptr<pool_bridge> b,
                              kubernetes_rm_options opts, std::string slot_type,
                              std::string cluster_name);

} // namespace det::rm
