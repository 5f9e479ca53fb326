#pragma once

// The kubernetes resource manager's effects: runs allocations as Jobs and
// reports what becomes of their pods. Everything blocking happens on its
// own threads (a serial worker for create/delete, one list-then-watch
// thread each for Pods and Events of every namespace it runs Jobs in, one
// log follower per pod), never on the caller's: launch() and kill() return at
// once, and results come back through the callbacks, on those threads (an actor
// turns them into messages to itself). Decisions stay with the caller: this
// class does what it is told and reports, keyed by allocation id.
//
// Only objects carrying this cluster's label are ever listed, watched or
// deleted (k8s/job_spec.hpp cluster_selector).

#include "k8s/cluster_view.hpp"
#include "k8s/job_spec.hpp"
#include "k8s/resources.hpp"
#include "k8s/watch.hpp"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace det::util {
class serial_worker;
}

namespace det::k8s {

struct runner_callbacks {
  /// A pod of the allocation changed state (assigned, starting, running).
  std::function<void(const std::string& alloc, const std::string& pod,
                     pod_state state, const std::string& node)>
      on_pod_state;
  /// Every pod of the allocation has terminated: the first non-zero exit
  /// code of its pods (0 when all succeeded); after the last lines of
  /// their logs (on_log), once the followers have read them.
  std::function<void(const std::string& alloc, int exit_code)> on_exit;
  /// Scheduler events and pending reasons ("FailedScheduling: 0/3 nodes
  /// are available: ...") and failures of our own calls.
  std::function<void(const std::string& alloc, const std::string& text)>
      on_message;
  /// Lines of a pod's log (prefixed with the pod's rank when numPods > 1),
  /// with the trial id of the pod's label.
  std::function<void(const std::string& alloc, int64_t trial_id,
                     std::vector<std::string>)>
      on_log;
  /// The watches' own notes: a re-list after a 410, a watch that failed
  /// and is retried.
  std::function<void(const std::string& text)> on_note{};
};

class job_runner {
public:
  job_runner(std::shared_ptr<api_client> client, job_settings settings,
             runner_callbacks cb);
  ~job_runner(); ///< stops the watches and log followers, joins threads
  job_runner(const job_runner&) = delete;
  job_runner& operator=(const job_runner&) = delete;

  /// Starts the Pod and Event watches of the settings' namespace and of
  /// every namespace list_allocations() found Jobs in.
  void start();

  /// Watches Pods and Events of `ns` too (once; launch() does it for the
  /// namespace it creates in).
  void watch_namespace(const std::string& ns);

  /// Renders and creates the PriorityClass (once), ConfigMap and Job.
  /// Refusals (a slot count that does not divide, a forbidden create) come
  /// back through on_message and on_exit(alloc, 1), never silently.
  void launch(const job_request& r);

  /// Deletes the allocation's Jobs (found by name and, in every
  /// namespace, by this cluster's and the allocation's labels;
  /// propagationPolicy Background, grace period `grace_seconds`) and
  /// ConfigMaps.
  void kill(const std::string& alloc, int grace_seconds = 15);

  /// The allocations of this cluster's Jobs now on the server, in every
  /// namespace (after a restart: what to re-attach); their namespaces are
  /// remembered for start() and kill(). Blocking: call from a worker
  /// thread.
  [[nodiscard]] caf::expected<std::set<std::string>> list_allocations();

  /// Deletes this cluster's Jobs and ConfigMaps, in every namespace, whose
  /// allocation is not in `known`; returns the deleted Jobs' names.
  /// Blocking.
  [[nodiscard]] caf::expected<std::vector<std::string>>
  delete_leftovers(const std::set<std::string>& known);

  /// Calls made so far (for the API-calls-per-minute figure).
  int64_t api_calls() const;

private:
  struct alloc_state;
  void on_pod_event(const std::string& type, const nlohmann::json& pod);
  void on_pods_synced(const std::string& ns,
                      const std::vector<nlohmann::json>& pods);
  void on_event(const watch_event& ev);
  /// Keeps an event's text for a pod not seen yet (under mu_).
  void hold_message(const std::string& pod, const std::string& text);
  void note(const std::string& text);
  void follow_logs(const std::string& ns, const std::string& alloc,
                   const std::string& pod, int rank, int64_t pod_count,
                   int64_t trial_id);
  /// The allocation's namespace (under mu_): where it was launched or
  /// found, else the settings'.
  std::string ns_of(const std::string& alloc) const;

  std::shared_ptr<api_client> client_;
  resources res_;
  job_settings settings_;
  runner_callbacks cb_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  /// alloc -> pod name -> last state seen / exit code when terminated.
  std::map<std::string, std::map<std::string, pod_status>> pods_;
  std::map<std::string, int64_t> expected_pods_;
  std::set<std::string> exited_;
  std::set<std::string> following_;
  /// alloc -> log followers still reading; an allocation whose pods all
  /// ended while one reads has its exit held (alloc -> code) until the
  /// last one is done.
  std::map<std::string, int> log_followers_;
  std::map<std::string, int> held_exits_;
  /// pod name -> event texts that came before the pod (hold_message).
  std::map<std::string, std::vector<std::string>> held_;
  static constexpr size_t max_held_pods = 256;
  static constexpr size_t max_held_messages = 8;
  std::set<int> priority_classes_;
  /// alloc -> the namespace its Job is in.
  std::map<std::string, std::string> alloc_ns_;
  /// Namespaces whose Pods and Events are watched.
  std::set<std::string> watched_;
  std::unique_ptr<util::serial_worker> worker_;
  std::vector<std::thread> threads_;
};

} // namespace det::k8s
