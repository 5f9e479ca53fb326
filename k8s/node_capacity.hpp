#pragma once

// The kubernetes resource manager's view of its Nodes, as pure code: the
// node table a list-then-watch keeps, which pools a node serves (its taints
// against each pool's tolerations, its labels against the pool's
// nodeSelector), each pool's capacity, and the coalescer that turns a
// stream of node changes into few capacity events. Owned by the node
// watcher (rm/k8s_nodes.cpp), which locks around it; nothing
// here blocks or is thread-safe on its own.

#include "k8s/cluster_view.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace det::k8s {

/// What of a pool's pod spec decides where its pods may go.
struct pool_placement {
  std::string pool;
  nlohmann::json tolerations = nlohmann::json::array();
  /// {label: value}; every one must be on the node.
  nlohmann::json node_selector = nlohmann::json::object();
};

/// The pool's placement from its pod spec (a Pod, or just its spec): the
/// spec's tolerations and nodeSelector; wrong types read as none.
pool_placement placement_of(const std::string& pool,
                            const nlohmann::json& pod_spec);

/// Whether the pool may place pods on the node (taints tolerated, every
/// nodeSelector label present with its value).
bool pool_may_use(const pool_placement& p, const nlohmann::json& node);

/// The pools (in `pools` order) that may use the node.
std::vector<std::string> pools_of_node(const std::vector<pool_placement>& pools,
                                       const nlohmann::json& node);

/// Nodes by name, as a list-then-watch delivers them.
class node_table {
public:
  /// A full list: replaces everything.
  void sync(const std::vector<nlohmann::json>& nodes);
  /// ADDED/MODIFIED store the node, DELETED drops it; others are ignored.
  void apply(const std::string& type, const nlohmann::json& node);
  const std::map<std::string, nlohmann::json>& nodes() const { return nodes_; }
  const nlohmann::json* find(const std::string& name) const;

private:
  std::map<std::string, nlohmann::json> nodes_;
};

/// Each pool's slots: the sum over Ready, schedulable (not cordoned), not
/// disabled nodes the pool may use (node_as_agent's slots). Every pool of
/// `pools` is in the answer, 0 when nothing serves it.
std::map<std::string, int64_t>
pool_capacities(const node_table& nodes,
                const std::vector<pool_placement>& pools,
                const std::string& slot_type, double cpu_per_slot);

/// Coalesces capacity changes: a pool's new capacity is written only once
/// it has differed from the last written for `settle` (so a burst of node
/// events, or a node that flaps NotReady and back, writes at most one
/// event, and none when it ends where it began). Times are injected.
class capacity_coalescer {
public:
  using clock = std::chrono::steady_clock;
  explicit capacity_coalescer(
      std::chrono::milliseconds settle = std::chrono::milliseconds{1000})
      : settle_(settle) {}

  /// What the log holds for the pool (at start, and after each write).
  void written(const std::string& pool, int64_t slots);
  /// The pool's capacity is `slots` as of `now`.
  void observe(const std::string& pool, int64_t slots, clock::time_point now);
  /// Pools whose observed capacity differs from the written one and has
  /// been pending for `settle` by `now`: the values to write. The caller
  /// reports each write with written(), or retry_later() when it failed.
  std::map<std::string, int64_t> due(clock::time_point now) const;
  /// A write failed: offer the pool again after another `settle`.
  void retry_later(const std::string& pool, clock::time_point now);

private:
  struct entry {
    std::optional<int64_t> written;
    int64_t observed = 0;
    bool seen = false;
    clock::time_point differs_since{};
  };
  std::chrono::milliseconds settle_;
  std::map<std::string, entry> pools_;
};

} // namespace det::k8s
