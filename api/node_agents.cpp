#include "api/node_agents.hpp"

#include "api/route_util.hpp"
#include "api/views_cluster.hpp"
#include "http/grpc_error.hpp"
#include "util/log.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace det::api {

nlohmann::json node_agent_json(const state::cluster_state& s,
                               const node_agent_info& n) {
  state::agent_info a;
  a.id = n.id;
  a.pool = n.pools.empty() ? std::string{} : n.pools.front();
  a.slot_type = n.slot_type;
  a.enabled = n.enabled;
  a.connected_at_us = n.registered_at_us;
  a.slots.assign(static_cast<size_t>(std::max<int64_t>(n.slots, 0)),
                 std::string{});
  size_t next = 0;
  for (const auto& [alloc, slots] : n.pods)
    for (int64_t k = 0; k < slots && next < a.slots.size(); ++k)
      a.slots[next++] = alloc;
  auto j = agent_json(s, a);
  j["resourcePools"] = n.pools;
  j["addresses"] = n.addresses;
  return j;
}

void node_agents_route(const std::shared_ptr<const api_context>& ctx,
                       const http::http_request& req, http::responder res,
                       page p) {
  answer_view(
      ctx, req, res,
      [nodes = ctx->nodes->list(), p](const state::cluster_state& s, int64_t) {
        auto list = nlohmann::json::array();
        for (const auto& n : nodes)
          list.push_back(node_agent_json(s, n));
        return paginate("agents", std::move(list), p);
      },
      "");
}

void node_agent_route(const std::shared_ptr<const api_context>& ctx,
                      const http::http_request& req, http::responder res,
                      const std::string& id) {
  auto nodes = ctx->nodes->list();
  auto n = std::find_if(nodes.begin(), nodes.end(),
                        [&](const node_agent_info& x) { return x.id == id; });
  if (n == nodes.end())
    return res.send_error(http::grpc_code::not_found,
                          "agent '" + util::fit_text(id, {255, false, true})
                              + "' not found");
  answer_view(
      ctx, req, res,
      [node = *n](const state::cluster_state& s, int64_t) {
        return nlohmann::json{{"agent", node_agent_json(s, node)}};
      },
      "");
}

void set_node_enabled(const std::shared_ptr<const api_context>& ctx,
                      const std::string& id, http::responder res,
                      bool enabled) {
  ctx->nodes->set_enabled(id, enabled, [res, id, enabled](caf::error err) {
    if (err)
      return res.send(http::error_response(err));
    log::info() << "node " << id << " " << (enabled ? "enabled" : "disabled")
                << " (label " << (enabled ? "removed" : "set") << ")";
    res.send_json("{}");
  });
}

} // namespace det::api
