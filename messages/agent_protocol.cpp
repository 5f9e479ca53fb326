#include "messages/agent_protocol.hpp"

namespace det::agent {

using nlohmann::json;

namespace {

json frame(const char* type) {
  return json{{"v", protocol_version}, {"type", type}};
}

std::string dump(const json& j) {
  // Trial output may hold invalid UTF-8: replace it rather than throw.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

caf::error bad(const std::string& what) {
  return make_error(errc::invalid_argument, what);
}

std::string str_field(const json& j, const char* key) {
  auto i = j.find(key);
  return i != j.end() && i->is_string() ? i->get<std::string>() : "";
}

int64_t int_field(const json& j, const char* key) {
  auto i = j.find(key);
  return i != j.end() && i->is_number_integer() ? i->get<int64_t>() : 0;
}

std::string env_value(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

caf::expected<start_request> parse_start(const json& j) {
  start_request s;
  s.allocation_id = str_field(j, "allocation_id");
  if (s.allocation_id.empty())
    return bad("start: allocation_id: required");
  s.entrypoint = str_field(j, "entrypoint");
  if (s.entrypoint.empty())
    return bad("start: entrypoint: required");
  s.trial_id = int_field(j, "trial_id");
  s.experiment_id = int_field(j, "experiment_id");
  s.target_length = int_field(j, "target_length");
  if (auto i = j.find("slots"); i != j.end() && i->is_array())
    for (auto& x : *i)
      if (x.is_number_integer())
        s.slots.push_back(x.get<int64_t>());
  if (auto i = j.find("hparams"); i != j.end() && i->is_object())
    s.hparams = *i;
  if (auto i = j.find("resume_from"); i != j.end() && i->is_object()) {
    auto uuid = str_field(*i, "uuid");
    if (!uuid.empty())
      s.resume_from = checkpoint_ref{uuid, int_field(*i, "steps_completed")};
  }
  if (auto i = j.find("env"); i != j.end() && i->is_object())
    for (auto& [k, v] : i->items())
      s.env[k] = env_value(v);
  return s;
}

} // namespace

std::string hello_frame(const hello_info& h) {
  auto j = frame("hello");
  j["agent_id"] = h.agent_id;
  j["resource_pool"] = h.resource_pool;
  j["slots"] = h.slots;
  j["slot_type"] = h.slot_type;
  j["instance_id"] = h.instance_id;
  j["running"] = h.running;
  if (!h.exited.empty()) {
    auto& list = j["exited"] = json::array();
    for (const auto& x : h.exited)
      list.push_back({{"allocation_id", x.allocation_id},
                      {"exit_code", x.exit_code},
                      {"exited_at_us", x.exited_at_us}});
  }
  return dump(j);
}

std::string running_frame(const std::string& allocation_id) {
  auto j = frame("running");
  j["allocation_id"] = allocation_id;
  return dump(j);
}

std::string exited_frame(const std::string& allocation_id, int exit_code,
                         int64_t exited_at_us) {
  auto j = frame("exited");
  j["allocation_id"] = allocation_id;
  j["exit_code"] = exit_code;
  if (exited_at_us != 0)
    j["exited_at_us"] = exited_at_us;
  return dump(j);
}

std::string log_frame(const std::string& allocation_id, int64_t trial_id,
                      const std::vector<std::string>& lines) {
  auto j = frame("log");
  j["allocation_id"] = allocation_id;
  j["trial_id"] = trial_id;
  j["lines"] = lines;
  return dump(j);
}

std::string heartbeat_frame() {
  return dump(frame("heartbeat"));
}

std::string error_frame(const std::string& message) {
  auto j = frame("error");
  j["message"] = message;
  return dump(j);
}

caf::expected<master_frame> parse_master_frame(const std::string& text) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return bad("not a JSON object");
  master_frame f;
  f.type = str_field(j, "type");
  if (f.type.empty())
    return bad("type: required");
  if (f.type == "welcome") {
    f.agent_id = str_field(j, "agent_id");
    if (auto i = j.find("heartbeat_interval_s"); i != j.end() && i->is_number())
      f.heartbeat_interval_s = static_cast<int64_t>(i->get<double>());
    if (auto i = j.find("heartbeat_interval_ms");
        i != j.end() && i->is_number())
      f.heartbeat_interval_ms = static_cast<int64_t>(i->get<double>());
  } else if (f.type == "start") {
    auto s = parse_start(j);
    if (!s)
      return s.error();
    f.start = std::move(*s);
    f.allocation_id = f.start.allocation_id;
  } else if (f.type == "preempt" || f.type == "kill") {
    f.allocation_id = str_field(j, "allocation_id");
    f.reason = str_field(j, "reason");
    if (f.allocation_id.empty())
      return bad(f.type + ": allocation_id: required");
  } else if (f.type == "error") {
    f.message = str_field(j, "message");
  } else if (f.type == "exit_ack") {
    if (auto i = j.find("allocation_ids"); i != j.end() && i->is_array())
      for (auto& x : *i)
        if (x.is_string() && !x.get<std::string>().empty())
          f.allocation_ids.push_back(x.get<std::string>());
    if (f.allocation_ids.empty())
      return bad("exit_ack: allocation_ids: required");
  }
  return f;
}

std::map<std::string, std::string>
trial_environment(const start_request& s, const std::string& master_url,
                  const std::string& checkpoint_dir,
                  const std::string& agent_id) {
  std::map<std::string, std::string> env;
  env["DET_MASTER"] = master_url;
  env["DET_AGENT_ID"] = agent_id;
  env["DET_TASK_TYPE"] = "TRIAL";
  env["DET_CONTAINER_ID"] = s.allocation_id;
  env["DET_RESOURCES_ID"] = s.allocation_id;
  env["DET_TRIAL_ID"] = std::to_string(s.trial_id);
  env["DET_EXPERIMENT_ID"] = std::to_string(s.experiment_id);
  env["DET_ALLOCATION_ID"] = s.allocation_id;
  env["DET_HPARAMS"] = s.hparams.dump();
  env["DET_TARGET_LENGTH"] = std::to_string(s.target_length);
  env["DET_LATEST_CHECKPOINT"] = s.resume_from ? s.resume_from->uuid : "";
  env["DET_LATEST_CHECKPOINT_STEPS"] =
      std::to_string(s.resume_from ? s.resume_from->steps_completed : 0);
  env["DET_CHECKPOINT_DIR"] = checkpoint_dir;
  env["DET_SLOT_IDS"] = json(s.slots).dump(); // "[0,1]", as upstream
  for (auto& [k, v] : s.env)
    env[k] = v;
  return env;
}

} // namespace det::agent
