#pragma once

// How the kubernetes resource manager reads what it watches, as pure
// functions over the API's JSON: a Node as an agent with slots, a Pod as a
// task state with its exit code, a Job's end, a scheduler Event as a
// message for the trial's logs, and which labelled objects are leftovers
// of allocations the master no longer has. Everything tolerates missing
// or mistyped fields (a hostile or odd API server): absent reads as zero
// or empty.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace det::k8s {

/// A Kubernetes quantity ("4", "3500m", "1.5", "2Ki", "1e3") as a number of
/// units (cores for cpu); nullopt when it does not parse.
std::optional<double> parse_quantity(const std::string& q);

struct node_agent {
  std::string name;
  int64_t slots = 0;
  bool ready = false;
  bool schedulable = true; ///< not cordoned, not disabled by us
  bool disabled = false;   ///< carries disabled_node_label
};

/// The node as an agent: slots = allocatable nvidia.com/gpu (slot_type
/// gpu) or floor(allocatable cpu / cpu_per_slot) (cpu).
node_agent node_as_agent(const nlohmann::json& node,
                         const std::string& slot_type, double cpu_per_slot);

/// Whether a pool with these tolerations may place pods on the node: every
/// NoSchedule/NoExecute taint of the node is tolerated (key and value, or
/// operator Exists; an empty-key Exists toleration tolerates all).
bool tolerates(const nlohmann::json& tolerations, const nlohmann::json& node);

/// A pod's state as the task sees it (upstream's mapping).
enum class pod_state { assigned, starting, running, terminated };

struct pod_status {
  pod_state state = pod_state::assigned;
  std::string node;
  /// Set once terminated: the container's exit code (Failed without one
  /// reads 137 when the pod was evicted or deleted, 1 otherwise).
  std::optional<int> exit_code;
  /// Why: "ImagePullBackOff", "Evicted", "OOMKilled", the scheduler's
  /// condition message ("0/3 nodes are available: ...").
  std::string reason;
  /// Set once terminated: what the container runtime said of the end
  /// ("exec: no such file", the OOM killer), at most 1 KiB.
  std::string message;
  /// True for a waiting reason that never resolves alone
  /// (ImagePullBackOff, ErrImagePull, InvalidImageName,
  /// CreateContainerConfigError): the task is killed.
  bool fatal_wait = false;
};

pod_status read_pod(const nlohmann::json& pod);

/// Complete, Failed, or "" for a running Job.
std::string job_outcome(const nlohmann::json& job);

/// A scheduling message from a core/v1 Event about a Pod: the pod's name
/// and "FailedScheduling: 0/3 nodes are available: ...". nullopt for other
/// events.
struct pod_message {
  std::string pod;
  std::string text;
  bool warning = false;
};
std::optional<pod_message> read_event(const nlohmann::json& event);

/// The names of labelled objects that are this cluster's (cluster_label ==
/// label_value(cluster_id)) and whose allocation label is not in `known`.
/// Objects without the cluster label, or with another cluster's, are never
/// chosen.
std::vector<std::string> leftovers(const std::vector<nlohmann::json>& objects,
                                   const std::string& cluster_id,
                                   const std::set<std::string>& known);

/// The allocation label of an object ("" when absent).
std::string allocation_of(const nlohmann::json& obj);

/// A pod's rank among its allocation's pods: the Indexed Job's completion
/// index; `fallback` when absent or not a small non-negative number.
int pod_rank(const nlohmann::json& pod, int fallback);

/// After a re-list: the (allocation, pod) pairs of pods known and not yet
/// terminated that the list no longer has (deleted while the watch was
/// away: their end was never seen).
std::vector<std::pair<std::string, std::string>>
gone_pods(const std::map<std::string, std::map<std::string, pod_status>>& known,
          const std::vector<nlohmann::json>& listed);

/// How many pods the pod's allocation has (its num_pods label); 1 when
/// absent or not a number from 1 to 1024.
int64_t pods_of(const nlohmann::json& pod);

} // namespace det::k8s
