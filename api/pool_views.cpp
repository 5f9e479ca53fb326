#include "api/pool_views.hpp"

#include "api/views.hpp"
#include "state/queries.hpp"

namespace det::api {

namespace {

nlohmann::json instance_json(const state::cluster_state& s,
                             const state::instance_info& i) {
  auto agent = state::find_agent(s, i.agent_id.empty() ? i.id : i.agent_id);
  return {{"id", i.id},
          {"state", state::to_string(i.status)},
          {"launchSeq", i.launch_seq},
          {"spotRequestId", i.spot_request_id},
          {"agentId", agent ? agent->id : ""},
          {"agentConnected",
           agent && agent->status == state::agent_status::connected},
          {"idleSince",
           agent && agent->idle_since_us ? rfc3339(*agent->idle_since_us) : ""},
          {"launchedAt", rfc3339(i.launched_at_us)},
          {"terminateReason", i.terminate_reason}};
}

} // namespace

nlohmann::json pool_provisioning_json(const state::cluster_state& s,
                                      const std::string& name) {
  const auto& p = s.pools.at(name);
  auto instances = nlohmann::json::array();
  for (auto i : state::instances_of_pool(s, name))
    instances.push_back(instance_json(s, *i));
  auto spot = nlohmann::json::array();
  for (const auto& [id, r] : s.spot_requests)
    if (r.pool == name)
      spot.push_back({{"id", id},
                      {"state", "open"},
                      {"launchSeq", r.launch_seq},
                      {"openedAt", rfc3339(r.opened_at_us)}});
  nlohmann::json launches = nlohmann::json::array();
  for (const auto& [seq, l] : p.launches)
    launches.push_back({{"launchSeq", seq},
                        {"clientToken", l.client_token},
                        {"count", l.count},
                        {"seen", l.seen},
                        {"spot", l.spot}});
  return {{"pendingTrials", state::pending_trials(s, name).size()},
          {"instances", instances},
          {"spotRequests", spot},
          {"outstandingLaunches", launches},
          {"launchError",
           {{"kind", p.last_launch_error_kind},
            {"message", p.last_launch_error},
            {"at", rfc3339(p.last_launch_error_at_us)},
            {"consecutiveFailures", p.consecutive_launch_failures}}}};
}

} // namespace det::api
