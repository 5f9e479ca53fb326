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
// watched (rm/k8s_nodes.hpp): a pool's capacity that changes becomes
// agent_slots_changed of its virtual agent, and the API lists the nodes as
// agents.

#include "rm/resource_manager.hpp"

#include <memory>
#include <string>

namespace det::rm {

/// The kubernetes resource manager (resource_manager.hpp). attach_api gives
/// the API the nodes as agents (bound once started) and the namespace check
/// (a GET of the namespace on a thread of its own: "" when it exists, else
/// "namespace 'x' does not exist in the Kubernetes cluster"). start
/// connects to the API server (kubeconfig_path, or in-cluster with the
/// service-account folder `sa_dir` when not ""), registers one virtual
/// agent per pool and starts the watches; blocking for its first calls;
/// errors name what failed (an unreachable API server, a refused list).
/// stop ends the watches, log followers and virtual agents (joins their
/// threads).
std::unique_ptr<resource_manager>
make_kubernetes_rm(const conf::master_config& cfg, std::string sa_dir);

} // namespace det::rm
