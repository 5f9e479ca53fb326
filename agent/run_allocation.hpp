#pragma once

// det-agent's runner for one allocation outside an agent: what a
// Kubernetes pod of the kubernetes resource manager runs
// (`det-agent --run-allocation FILE`). FILE holds the `start` frame the
// master would have sent an agent (docs/agent_protocol.md), written by the
// master into the allocation's ConfigMap. The same steps as a det-agent
// start: for a trial, the model definition from the master (with the
// allocation's session token) and the harness files; for a task (the frame
// names a task_id: a command, notebook, shell, TensorBoard or generic
// task), its context directory and the task's environment, and its output
// kept DET_LOG_WAIT_TIME after the entrypoint ends. The entrypoint runs as
// a process group under the supervisor; its output goes to stdout (the
// pod's log, which the master follows) and its exit code becomes ours
// (128+N for signal N), which the master reads from the pod's status.
// SIGTERM (the pod deleted) is passed on to the process with the kill
// grace. A task's service reports itself ready to the master from the pod
// (POST /api/v1/allocations/{id}/ready), whose address the master proxies
// to.

#include <string>

namespace det::agent {

struct run_allocation_options {
  std::string start_file;
  std::string master_url;
  std::string work_dir = "/tmp/det-pod";
  std::string checkpoint_dir = "/tmp/determined-checkpoint";
  /// The pod's own, from its Job (DET_POD_NAME, DET_POD_RANK, DET_NUM_PODS;
  /// conf/env_overrides.hpp): "" when unset. Rank and count reach the
  /// trial's environment when set.
  std::string pod_name;
  std::string pod_rank;
  std::string num_pods;
};

/// Never throws; returns the process exit code (1 when the trial could not
/// be started, with the reason on stderr).
int run_allocation(const run_allocation_options& o);

} // namespace det::agent
