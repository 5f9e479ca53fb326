#pragma once

// The kubernetes resource manager's Nodes: a list-then-watch of every Node
// of the cluster (k8s/watch.hpp's loop, on a thread of its own) keeps the
// node table; each pool's capacity (k8s/node_capacity.hpp) goes through a
// coalescer, and a flusher thread writes what is due through `write`
// (the pool's virtual agent -> agent_slots_changed in the log). It is also
// the API's view of the nodes as agents (api/node_agents.hpp): the nodes
// with their pools and slots, our pods on them, and `det agent disable`
// labelling a node determined.ai/disabled (merge patch; enable removes it
// with a null), on a worker thread. Only nodes it has seen may be
// labelled; nothing else is ever changed.

#include "api/node_agents.hpp"
#include "k8s/node_capacity.hpp"
#include "k8s/resources.hpp"

#include <atomic>
#include <condition_variable>
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

namespace det::rm {

struct node_watch_options {
  std::shared_ptr<k8s::api_client> client;
  std::vector<k8s::pool_placement> pools;
  std::string slot_type = "gpu"; ///< gpu | cpu
  double cpu_per_slot = 1;
  std::chrono::milliseconds settle{1000};
  int watch_timeout_seconds = 300;
};

/// Writes a pool's capacity; true once the log holds it. Runs on the
/// flusher thread (it may block).
using capacity_writer =
    std::function<bool(const std::string& pool, int64_t slots)>;

class node_watch final : public api::node_agents {
public:
  node_watch(node_watch_options opts, capacity_writer write);
  ~node_watch() override; ///< stops and joins the threads
  node_watch(const node_watch&) = delete;
  node_watch& operator=(const node_watch&) = delete;

  /// The nodes of a first list: the capacities they give each pool.
  std::map<std::string, int64_t> sync(const std::vector<nlohmann::json>& nodes);
  /// Starts the watch and the flusher; `written` is each pool's capacity
  /// as the log holds it now.
  void start(const std::map<std::string, int64_t>& written);

  /// Our pods, from the job runners' reports: `slots` per pod of the
  /// allocation (set when it starts or is re-attached).
  void allocation_slots(const std::string& alloc, int64_t slots_per_pod);
  void pod_on_node(const std::string& alloc, const std::string& pod,
                   const std::string& node);
  void allocation_ended(const std::string& alloc);

  std::vector<api::node_agent_info> list() const override;
  void set_enabled(const std::string& id, bool enabled,
                   std::function<void(caf::error)> done) override;

private:
  void changed_locked();
  void flush_loop();

  node_watch_options opts_;
  capacity_writer write_;
  k8s::resources res_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  k8s::node_table table_;
  k8s::capacity_coalescer coalescer_;
  std::map<std::string, int64_t> slots_per_pod_;
  /// alloc -> pod -> node
  std::map<std::string, std::map<std::string, std::string>> pods_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
  std::unique_ptr<util::serial_worker> worker_;
};

/// What the API holds from before the resource manager starts (the routes
/// are registered first): empty, and enable/disable unavailable, until
/// bind(); then the node watch's answers.
class node_agents_handle final : public api::node_agents {
public:
  void bind(std::shared_ptr<api::node_agents> nodes);
  std::vector<api::node_agent_info> list() const override;
  void set_enabled(const std::string& id, bool enabled,
                   std::function<void(caf::error)> done) override;

private:
  std::shared_ptr<api::node_agents> get() const;
  mutable std::mutex mu_;
  std::shared_ptr<api::node_agents> nodes_;
};

} // namespace det::rm
