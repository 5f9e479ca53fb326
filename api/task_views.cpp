#include "api/task_views.hpp"

#include "api/ntsc_entrypoints.hpp"
#include "conf/proxy_ports.hpp"
#include "conf/task_env.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"
#include "util/text.hpp"

#include <cctype>

namespace det::api {

using json = nlohmann::json;

std::string task_kind_of(const std::string& task_type) {
  std::string out;
  for (char c : task_type)
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

namespace {

/// Upstream's exitStatus: "" while the task lives.
std::string exit_status_of(const state::task_info& t) {
  return t.state == state::task_state::terminated ? t.exit_message : "";
}

int64_t task_user_id(const state::cluster_state& s, const std::string& name) {
  auto u = s.users.find(name);
  return u == s.users.end() ? 0 : u->second.id;
}

} // namespace

json ntsc_json(const state::cluster_state& s, const state::task_info& t) {
  json j{{"id", t.id},
         {"description", t.description},
         {"state", to_string(t.state)},
         {"startTime", rfc3339(t.launched_at_us)},
         {"displayName", t.owner},
         {"userId", task_user_id(s, t.owner)},
         {"username", t.owner},
         {"resourcePool", t.pool},
         {"exitStatus", exit_status_of(t)},
         {"jobId", t.id},
         {"workspaceId", t.workspace_id}};
  if (t.task_type == "NOTEBOOK" || t.task_type == "TENSORBOARD")
    j["serviceAddress"] = "/proxy/" + t.id + "/";
  if (t.task_type == "TENSORBOARD") {
    j["experimentIds"] = json::array();
    j["trialIds"] = json::array();
  }
  return j;
}

json shell_agent_user_group(const state::cluster_state& s,
                            const state::task_info& t) {
  json g{{"user", "root"}, {"uid", 0}, {"group", "root"}, {"gid", 0}};
  if (auto u = s.users.find(t.owner); u != s.users.end()) {
    const auto& info = u->second;
    g["id"] = info.id;
    g["user_id"] = info.id;
    if (!info.agent_user.empty())
      g["user"] = info.agent_user;
    if (info.agent_uid >= 0)
      g["uid"] = info.agent_uid;
    if (!info.agent_group.empty())
      g["group"] = info.agent_group;
    if (info.agent_gid >= 0)
      g["gid"] = info.agent_gid;
  }
  if (auto w = state::find_workspace(s, t.workspace_id)) {
    const auto& wg = w->agent_user_group;
    for (const auto& [from, to] :
         {std::pair<const char*, const char*>{"agentUser", "user"},
          {"agentUid", "uid"},
          {"agentGroup", "group"},
          {"agentGid", "gid"}})
      if (auto v = wg.find(from); v != wg.end() && !v->is_null())
        g[to] = *v;
  }
  return g;
}

void add_shell_fields(json& j, const state::cluster_state& s,
                      const state::task_info& t, const std::string& public_key,
                      const std::string& private_key) {
  j["privateKey"] = private_key;
  j["publicKey"] = public_key;
  json addresses = json::array();
  if (t.ready && t.proxy_port > 0 && state::holds_allocation(t))
    addresses.push_back({{"container_ip", t.proxy_host},
                         {"container_port", t.proxy_port},
                         {"host_ip", t.proxy_host},
                         {"host_port", t.proxy_port}});
  j["addresses"] = std::move(addresses);
  j["agentUserGroup"] = shell_agent_user_group(s, t);
}

std::string generic_task_state(const state::task_info& t) {
  std::string state = "ACTIVE";
  if (t.state == state::task_state::terminating)
    state = t.pausing ? "STOPPING_PAUSED" : "STOPPING_CANCELED";
  else if (t.state == state::task_state::terminated)
    state = t.exit_reason == "completed" ? "COMPLETED"
            : t.exit_reason == "paused"  ? "PAUSED"
            : t.exit_reason == "killed"  ? "CANCELED"
                                         : "ERROR";
  return "GENERIC_TASK_STATE_" + state;
}

json task_json(const state::task_info& t) {
  json alloc{
      {"taskId", t.id},
      {"allocationId", t.allocation_id.empty() ? t.id + ".1" : t.allocation_id},
      {"state", to_string(t.state)},
      {"isReady", t.ready},
      {"slots", t.slots}};
  if (t.placed_at_us > 0)
    alloc["startTime"] = rfc3339(t.placed_at_us);
  if (t.state == state::task_state::terminated) {
    alloc["endTime"] = rfc3339(t.ended_at_us);
    alloc["exitReason"] = t.exit_message;
    alloc["statusCode"] = t.exit_code;
  }
  json j{{"taskId", t.id},
         {"taskType", "TASK_TYPE_" + t.task_type},
         {"allocations", json::array({alloc})},
         {"startTime", rfc3339(t.launched_at_us)}};
  // A paused generic task has not ended: it waits to be unpaused.
  if (t.state == state::task_state::terminated && !state::is_paused(t))
    j["endTime"] = rfc3339(t.ended_at_us);
  if (t.task_type == "GENERIC") {
    j["taskState"] = generic_task_state(t);
    j["config"] = t.config.dump();
    if (!t.forked_from.empty())
      j["forkedFrom"] = t.forked_from;
    if (!t.parent_id.empty())
      j["parentId"] = t.parent_id;
    j["noPause"] = t.no_pause;
  }
  return j;
}

json trial_task_json(const state::trial_info& t, size_t run,
                     const std::string& id) {
  auto start = run == 0 ? t.created_at_us : t.continued_at_us[run - 1];
  // A run ended when the next began, or with the trial for the last one.
  int64_t end = run < t.continued_at_us.size() ? t.ended_before_continue_us[run]
                                               : t.ended_at_us;
  json j{{"taskId", id},
         {"taskType", "TASK_TYPE_TRIAL"},
         {"allocations", json::array()},
         {"startTime", rfc3339(start)}};
  if (end > 0)
    j["endTime"] = rfc3339(end);
  return j;
}

json task_summary_json(const state::task_info& t) {
  json devices = json::array();
  for (auto slot : t.agent_slots)
    devices.push_back({{"id", slot}, {"type", "TYPE_CPU"}});
  // Its service once it answers (det task list's "Ports"): what the
  // proxy reaches at /proxy/<task id>/, raw TCP for a shell's sshd.
  json ports = json::array();
  if (t.ready && t.proxy_port > 0)
    ports.push_back({{"serviceId", t.id},
                     {"port", t.proxy_port},
                     {"proxyTcp", t.task_type == "SHELL"},
                     {"unauthenticated", false}});
  // Its environment.proxy_ports while it runs: /proxy/<task id>:<port>/.
  std::string why;
  if (auto declared = conf::read_proxy_ports(
          t.config.value("environment", json::object()), why);
      declared && t.state == state::task_state::running
      && state::holds_allocation(t))
    for (const auto& p : *declared)
      ports.push_back({{"serviceId", t.id + ":" + std::to_string(p.port)},
                       {"port", p.port},
                       {"proxyTcp", p.tcp},
                       {"unauthenticated", p.unauthenticated}});
  json resources = json::array();
  resources.push_back(
      {{"allocationId", t.allocation_id},
       {"resourcesId", t.allocation_id + "." + t.agent_id},
       {"resourcesType", "RESOURCES_TYPE_DOCKER_CONTAINER"},
       {"containerId", t.allocation_id},
       {"agentDevices", {{t.agent_id, {{"devices", devices}}}}}});
  return {{"taskId", t.id},
          {"allocationId", t.allocation_id},
          {"name", t.description},
          {"registeredTime", rfc3339(t.placed_at_us)},
          {"resourcePool", t.pool},
          {"slotsNeeded", t.slots},
          {"resources", std::move(resources)},
          {"schedulerType", "priority"},
          {"priority", t.priority},
          {"proxyPorts", std::move(ports)}};
}

std::string task_shell_command(const json& config) {
  auto ep = config.find("entrypoint");
  if (ep == config.end() || ep->is_null())
    return "true";
  if (ep->is_string())
    return ep->get<std::string>().empty() ? "true" : ep->get<std::string>();
  if (!ep->is_array() || ep->empty())
    return "true";
  if (ep->size() == 1 && ep->front().is_string())
    return ep->front().get<std::string>().empty()
               ? "true"
               : ep->front().get<std::string>();
  std::string out = "exec";
  for (const auto& w : *ep)
    out += " "
           + util::shell_quote(w.is_string() ? w.get<std::string>() : w.dump());
  return out;
}

json task_start_frame(const task_start_order& o, const std::string& slot_type,
                      const start_context& ctx, const task_secrets& secrets) {
  json env = json::object();
  auto vars =
      conf::env_for_slot_type(o.config.value("environment", json::object())
                                  .value("environment_variables", json()),
                              slot_type);
  for (const auto& text : vars)
    if (auto eq = text.find('='); eq != std::string::npos && eq > 0)
      env[text.substr(0, eq)] = text.substr(eq + 1);
  env["DET_MASTER"] = ctx.master_url;
  env["DET_CLUSTER_ID"] = ctx.cluster_id;
  if (!ctx.cluster_uuid.empty()) // where TensorBoard files go
    env["DET_CLUSTER_UUID"] = ctx.cluster_uuid;
  env["DET_USER"] = o.owner;
  env["DET_SESSION_TOKEN"] = secrets.token;
  if (!secrets.user_token.empty())
    env["DET_USER_TOKEN"] = secrets.user_token;
  bool notebook = o.task_type == "NOTEBOOK";
  if (notebook) {
    env["DET_NOTEBOOK_TOKEN"] = secrets.notebook_token;
    auto idle_type = o.config.value("notebook_idle_type", json());
    env["NOTEBOOK_IDLE_TYPE"] = idle_type.is_string()
                                    ? idle_type.get<std::string>()
                                    : std::string{"kernels_or_terminals"};
  }
  bool shell = o.task_type == "SHELL";
  if (shell)
    env["DET_SHELL_PUBLIC_KEY"] = secrets.shell_public_key;
  bool tensorboard = o.task_type == "TENSORBOARD";
  if (tensorboard) {
    env["DET_TENSORBOARD"] = o.tensorboard.dump();
    if (auto a = o.config.find("tensorboard_args");
        a != o.config.end() && a->is_array())
      env["DET_TB_ARGS"] = a->dump();
    env["TF_CPP_MIN_LOG_LEVEL"] = "3";
  }
  // As upstream, the context's startup-hook.sh (`--include
  // startup-hook.sh`) is sourced first; its failure ends the task.
  auto entrypoint =
      std::string{"if [ -f ./startup-hook.sh ]; then . ./startup-hook.sh "
                  "|| exit $?; fi\n"}
      + (notebook      ? notebook_entrypoint()
         : shell       ? shell_entrypoint()
         : tensorboard ? tensorboard_entrypoint()
                       : task_shell_command(o.config));
  return {{"v", 1},
          {"type", "start"},
          {"allocation_id", o.allocation_id},
          {"trial_id", 0},
          {"task_id", o.task_id},
          {"task_type", o.task_type},
          {"slots", o.slots},
          {"entrypoint", entrypoint},
          {"env", env}};
}

} // namespace det::api
