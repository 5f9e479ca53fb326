#pragma once

// resource_manager: {type: kubernetes, ...} of master.yaml, with upstream's
// keys: the master runs each trial as a batch/v1 Job in a namespace instead
// of on det-agents. Pools then have no provider; a pool's
// task_container_defaults.{cpu,gpu}_pod_spec (tolerations, nodeSelector,
// containers) is merged into its pods and decides which nodes it sees.

#include "conf/reader.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace det::conf {

struct kubernetes_rm_config {
  /// `default_namespace`; upstream's older `namespace` is read as it.
  std::string default_namespace = "default";
  /// Required, as upstream: the most slots one pod asks for.
  int64_t max_slots_per_pod = 0;
  std::string slot_type = "gpu"; ///< gpu | cpu
  double cpu_per_slot = 1.0;     ///< slot_resource_requests.cpu (cores)
  std::string master_service_name = "determined-master-service";
  std::string default_scheduler; ///< "" (kube-scheduler) | coscheduler
  /// "" = in-cluster (service-account token and CA).
  std::string kubeconfig_path;
  /// Where pods reach the master; "" = <master_service_name>.<ns>.svc.
  /// cluster.local.
  std::string determined_master_host;
  uint16_t determined_master_port = 0; ///< 0 = the master's port
  std::string determined_master_scheme = "http";
  bool leave_kubernetes_resources = false;
  /// `cluster_name`: the name workspace-namespace bindings give this
  /// cluster ("" when unset; a request naming no cluster means it).
  std::string cluster_name;

  /// scheme://host:port tasks are given (DET_MASTER).
  std::string task_master_url(uint16_t master_port) const;
};

/// Reads the kubernetes keys of the resource_manager block `rm` (its `type`
/// already read). Errors name the key: resource_manager.max_slots_per_pod.
void read_kubernetes_rm(object_reader& rm, kubernetes_rm_config& out);

/// The pod spec of a pool's (or the cluster's) task_container_defaults for
/// `slot_type`: gpu_pod_spec or cpu_pod_spec, null when absent. Checks it is
/// an object, recording an error at `path` otherwise.
nlohmann::json pod_spec_of(const nlohmann::json* task_container_defaults,
                           const std::string& slot_type,
                           const std::string& path, diagnostics& diag);

} // namespace det::conf
