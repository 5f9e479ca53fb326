#pragma once

// Agents that are not det-agents: the machines another resource manager
// runs trials on (Kubernetes nodes under resource_manager: {type:
// kubernetes}). The resource manager implements node_agents (it watches the
// nodes; rm/k8s_nodes.cpp); the agent routes (GET /api/v1/agents
// and /agents/{id}, POST .../enable and .../disable) use it instead of the
// state's agents when api_context::nodes is set, so `det agent list`,
// `det slot list` and `det agent disable NODE` work on nodes. The pool's
// virtual agent that the scheduler places trials on is not listed then.

#include "api/views_cluster.hpp"
#include "http/responder.hpp"
#include "http/router.hpp"
#include "state/cluster_state.hpp"

#include <caf/error.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace det::api {

struct node_agent_info {
  std::string id;
  /// The pools that may place pods on it.
  std::vector<std::string> pools;
  int64_t slots = 0;
  /// "cuda" or "cpu".
  std::string slot_type = "cpu";
  bool enabled = true;
  int64_t registered_at_us = 0;
  std::vector<std::string> addresses;
  /// Each pod of ours on the node: its allocation and its slots.
  std::vector<std::pair<std::string, int64_t>> pods;
};

class node_agents {
public:
  virtual ~node_agents() = default;
  /// The nodes now, sorted by id. Quick (a copy under a lock).
  virtual std::vector<node_agent_info> list() const = 0;
  /// Labels the node disabled (enabled = false) or removes the label.
  /// Returns at once; `done` runs later on another thread with none,
  /// errc::not_found naming an unknown id, or the API server's refusal.
  virtual void set_enabled(const std::string& id, bool enabled,
                           std::function<void(caf::error)> done) = 0;
};

/// A node as a v1Agent (the shape agent_json gives a det-agent): one slot
/// per node slot, the first ones holding our pods' allocations as
/// containers (running or starting as the state says), its pools.
nlohmann::json node_agent_json(const state::cluster_state& s,
                               const node_agent_info& n);

struct api_context;

/// GET /api/v1/agents over the nodes: {"agents": [...], "pagination"}.
void node_agents_route(const std::shared_ptr<const api_context>& ctx,
                       const http::http_request& req, http::responder res,
                       page p);

/// GET /api/v1/agents/{id} over the nodes: {"agent": ...}; 404 naming an
/// unknown id.
void node_agent_route(const std::shared_ptr<const api_context>& ctx,
                      const http::http_request& req, http::responder res,
                      const std::string& id);

/// POST /api/v1/agents/{id}/enable|disable over the nodes (the caller
/// checked the admin): the label set or removed, then {}. With or without
/// drain, pods running on the node keep running.
void set_node_enabled(const std::shared_ptr<const api_context>& ctx,
                      const std::string& id, http::responder res, bool enabled);

} // namespace det::api
