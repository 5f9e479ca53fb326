#pragma once

// resource_manager: {type: kubernetes}: each resource pool becomes one
// virtual agent ("k8s-<pool>") whose slots are the pool's Kubernetes nodes'
// (allocatable GPUs, or allocatable CPU / slot_resource_requests.cpu, over
// the Ready, schedulable nodes whose taints the pool's pod spec tolerates).
// The master schedules onto it exactly as onto a det-agent, so every state
// change is the same event in the log (agent registered, trial placed,
// running, exited); the agent's connection, instead of a WebSocket, is an
// actor that turns `start` into a ConfigMap (the start frame) plus a Job
// whose pods run `det-agent --run-allocation` (k8s/job_runner), `kill`
// into a Background delete, and pod states, exit codes and logs back into
// running/exited reports and trial logs. After a restart the agent's hello
// lists the allocations of the Jobs found by this cluster's label, so the
// master re-attaches them (and kills what it no longer knows); labelled
// Jobs and ConfigMaps of no allocation are deleted at start. The Nodes are
// watched (k8s_nodes.hpp): a pool's capacity that changes becomes
// agent_slots_changed of its virtual agent, and the API lists the nodes as
// agents.

#include "actors/master_actor.hpp"
#include "api/codec.hpp"
#include "api/trial_logs.hpp"
#include "api/views.hpp"
#include "conf/master_config.hpp"

#include <caf/actor_system.hpp>

#include <memory>
#include <string>

namespace det::master {

class node_agents_handle;

struct kubernetes_rm_options {
  caf::actor_system* sys = nullptr;
  master_actor master;
  std::shared_ptr<api::trial_logs> logs;
  std::shared_ptr<const api::session_tokens> tokens;
  /// master_url here is the one pods reach (task_master_url).
  api::start_context start;
  std::string cluster_id;
  uint16_t master_port = 8080;
  /// Bound to the node watch once started (the API's nodes as agents).
  std::shared_ptr<node_agents_handle> nodes;
};

class kubernetes_rm;

/// Connects to the API server (kubeconfig_path or in-cluster), registers
/// one virtual agent per pool and starts the watches. Blocking for its
/// first calls (run it before serving, on the main thread); errors name
/// what failed (an unreachable API server, a refused list).
[[nodiscard]] caf::expected<std::shared_ptr<kubernetes_rm>>
start_kubernetes_rm(const conf::master_config& cfg,
                    const kubernetes_rm_options& opts);

/// api_context::check_namespace for this master's cluster: a GET of the
/// namespace, on a thread of its own (the API server reached as
/// start_kubernetes_rm reaches it); "" when it exists, else why not
/// ("namespace 'x' does not exist in the Kubernetes cluster").
std::function<void(std::string, std::function<void(std::string)>)>
namespace_checker(const conf::kubernetes_rm_config& kc);

/// Stops the watches and log followers (joins their threads).
void stop_kubernetes_rm(std::shared_ptr<kubernetes_rm>& rm);

} // namespace det::master
