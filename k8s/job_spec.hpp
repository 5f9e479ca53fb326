#pragma once

// What the kubernetes resource manager creates for one allocation, as pure
// functions of the settings and the request: one batch/v1 Job with numPods
// pods (parallelism = completions = numPods, backoffLimit 0, restartPolicy
// Never, ttlSecondsAfterFinished 900) and one ConfigMap holding the run
// files, both labelled so a restarted master finds them again and never
// touches what is not this cluster's. No I/O: tests render and compare.

#include "messages/errc.hpp"

#include <caf/expected.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace det::k8s {

/// Label keys. cluster_label marks everything this master creates; the
/// rest follow upstream's names.
inline constexpr const char* cluster_label = "determined.ai/cluster";
inline constexpr const char* allocation_label = "determined.ai/allocation_id";
inline constexpr const char* trial_label = "determined.ai/trial_id";
inline constexpr const char* experiment_label = "determined.ai/experiment_id";
inline constexpr const char* user_label = "determined.ai/user";
inline constexpr const char* pool_label = "determined.ai/resource_pool";
inline constexpr const char* task_type_label = "determined.ai/task_type";
inline constexpr const char* task_id_label = "determined.ai/task_id";
inline constexpr const char* disabled_node_label =
    "determined.ai/disabled"; ///< on a node: keep new pods off it
inline constexpr const char* container_name = "determined-container";
/// On each pod: how many pods the allocation has (a re-attached Job's pods
/// tell the runner when the allocation has ended).
inline constexpr const char* num_pods_label = "determined.ai/num_pods";
/// Written by the Job controller on each pod of an Indexed Job: its rank.
inline constexpr const char* completion_index_annotation =
    "batch.kubernetes.io/job-completion-index";

struct job_settings {
  std::string cluster_id;
  std::string ns = "default";
  int64_t max_slots_per_pod = 8;
  std::string slot_type = "gpu"; ///< gpu | cpu
  double cpu_per_slot = 1.0;     ///< slot_resource_requests.cpu
  std::string default_scheduler; ///< "" | coscheduler
  /// The pool's pod spec (task_container_defaults gpu_pod_spec or
  /// cpu_pod_spec): a Pod or a PodSpec-shaped object; may be null.
  nlohmann::json pool_pod_spec;
  /// The pool's tolerations and node selector (pool membership).
  nlohmann::json tolerations = nlohmann::json::array();
  std::map<std::string, std::string> node_selector;
};

struct job_request {
  std::string allocation_id; ///< unique per allocation, e.g. "7.1"
  int64_t trial_id = 0;
  int64_t experiment_id = 0;
  /// A task's allocation (trial_id and experiment_id 0): its id and type
  /// (COMMAND, NOTEBOOK, SHELL, TENSORBOARD, GENERIC); "" for a trial.
  std::string task_id;
  std::string task_type;
  std::string user;
  std::string pool = "default";
  int64_t slots = 1;
  int priority = 42; ///< Determined's: 1 (highest) .. 99
  std::string image;
  std::vector<std::string> command;
  std::map<std::string, std::string> env;
  /// The user's pod spec (environment.pod_spec); may be null.
  nlohmann::json user_pod_spec;
  /// Files for the ConfigMap (mounted at /run/determined/config).
  std::map<std::string, std::string> files;
  /// The namespace to run in (its workspace's binding); "" = settings.ns.
  std::string ns;
};

/// Where the request's objects go: its namespace, else the settings'.
inline const std::string& namespace_of(const job_settings& s,
                                       const job_request& r) {
  return r.ns.empty() ? s.ns : r.ns;
}

struct job_objects {
  nlohmann::json job;
  nlohmann::json config_map;
  int64_t num_pods = 1;
};

/// 1 when slots <= max_slots_per_pod, else slots / max_slots_per_pod;
/// errc::invalid_argument naming `slots_per_trial` when that does not
/// divide, or a max below 1.
[[nodiscard]] caf::expected<int64_t> num_pods(int64_t slots,
                                              int64_t max_slots_per_pod);

/// A label value Kubernetes accepts: [A-Za-z0-9._-], at most 63 bytes,
/// starting and ending alphanumeric; others replaced by '_' (a value that
/// loses characters gets a hash suffix so two values stay apart).
std::string label_value(const std::string& raw);

/// The Job's (and ConfigMap's) name: "det-" + the allocation as a DNS-1123
/// label, at most 63 bytes, unique per allocation.
std::string job_name(const std::string& cluster_id,
                     const std::string& allocation_id);

/// The PriorityClass for a Determined priority (1 highest): name
/// "determined-priority-<p>", value 100 - p (Kubernetes: higher wins).
std::string priority_class_name(int priority);
nlohmann::json priority_class(int priority);

/// The labels every object of this allocation carries (a task's: its
/// task_type and task_id; a trial's task_type is TRIAL).
std::map<std::string, std::string> allocation_labels(const job_settings& s,
                                                     const job_request& r);

/// `base` with `over` merged on top: maps merge recursively, lists replace,
/// except spec.containers / initContainers / volumes, merged by name (an
/// entry named like one in base merges into it, others are appended).
nlohmann::json merge_pod_specs(const nlohmann::json& base,
                               const nlohmann::json& over);

/// The Job and ConfigMap; refuses (invalid_argument naming the field) a
/// slot count that does not divide, an empty command or image.
[[nodiscard]] caf::expected<job_objects> render_job(const job_settings& s,
                                                    const job_request& r);

/// The label selector of everything this cluster made.
std::string cluster_selector(const std::string& cluster_id);

} // namespace det::k8s
