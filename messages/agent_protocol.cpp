#include "messages/agent_protocol.hpp"

#include <limits>
#include <tuple>

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
  s.task_id = str_field(j, "task_id");
  s.task_type = str_field(j, "task_type");
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
    // Whole numbers of at most a day; a float out of int64's range would
    // otherwise be converted with undefined behaviour.
    for (auto [key, out, most] :
         {std::tuple{"heartbeat_interval_s", &f.heartbeat_interval_s,
                     int64_t{86400}},
          std::tuple{"heartbeat_interval_ms", &f.heartbeat_interval_ms,
                     int64_t{86400000}}}) {
      auto i = j.find(key);
      if (i == j.end() || !i->is_number())
        continue;
      auto v = i->get<double>();
      if (!(v >= 0 && v <= static_cast<double>(most)))
        return bad(std::string{"welcome."} + key + ": expected 0 to "
                   + std::to_string(most));
      *out = static_cast<int64_t>(v);
    }
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

namespace {

/// The string at `key`, `fallback` when absent or null; false (and `what`
/// says why) for any other type.
bool text_at(const json& j, const char* key, std::string& out,
             std::string fallback, const std::string& frame_type,
             std::string& what) {
  auto i = j.find(key);
  if (i == j.end() || i->is_null()) {
    out = std::move(fallback);
    return true;
  }
  if (!i->is_string()) {
    what = frame_type + "." + key + ": expected text";
    return false;
  }
  out = i->get<std::string>();
  return true;
}

/// The whole number at `key` in [lo, hi], `fallback` when absent or null.
/// Floats are refused rather than cast: a cast out of range is undefined.
template <class T>
bool whole_at(const json& j, const char* key, T& out, T fallback, int64_t lo,
              int64_t hi, const std::string& frame_type, std::string& what) {
  auto i = j.find(key);
  if (i == j.end() || i->is_null()) {
    out = fallback;
    return true;
  }
  bool ok = false;
  if (i->is_number_unsigned())
    ok = i->get<uint64_t>() <= static_cast<uint64_t>(hi);
  else if (i->is_number_integer())
    ok = i->get<int64_t>() >= lo && i->get<int64_t>() <= hi;
  if (!ok) {
    what = frame_type + "." + key + ": expected a whole number from "
           + std::to_string(lo) + " to " + std::to_string(hi);
    return false;
  }
  out = static_cast<T>(i->get<int64_t>());
  return true;
}

caf::error parse_hello_fields(const json& j, hello_info& h) {
  std::string what;
  bool ok =
      text_at(j, "agent_id", h.agent_id, "", "hello", what)
      && text_at(j, "resource_pool", h.resource_pool, "default", "hello", what)
      && text_at(j, "slot_type", h.slot_type, "cpu", "hello", what)
      && text_at(j, "instance_id", h.instance_id, "", "hello", what)
      && whole_at<int64_t>(j, "slots", h.slots, -1, 0,
                           std::numeric_limits<int32_t>::max(), "hello", what);
  if (!ok)
    return bad(what);
  if (h.agent_id.empty())
    return bad("hello.agent_id: required");
  if (h.slots < 0)
    return bad("hello.slots: required");
  if (auto r = j.find("running"); r != j.end() && !r->is_null()) {
    if (!r->is_array())
      return bad("hello.running: expected a list of allocation ids");
    for (const auto& a : *r) {
      if (!a.is_string())
        return bad("hello.running: expected a list of allocation ids");
      h.running.push_back(a.get<std::string>());
    }
  }
  // Exits the agent keeps until acknowledged (older agents send none).
  if (auto r = j.find("exited"); r != j.end() && !r->is_null()) {
    if (!r->is_array())
      return bad("hello.exited: expected a list of exits");
    for (const auto& x : *r) {
      if (!x.is_object())
        return bad("hello.exited[]: expected an object");
      exit_report e;
      int32_t code = 0;
      ok = text_at(x, "allocation_id", e.allocation_id, "", "hello.exited[]",
                   what)
           && whole_at<int32_t>(
               x, "exit_code", code, -1, std::numeric_limits<int32_t>::min(),
               std::numeric_limits<int32_t>::max(), "hello.exited[]", what)
           && whole_at<int64_t>(x, "exited_at_us", e.exited_at_us, 0, 0,
                                std::numeric_limits<int64_t>::max(),
                                "hello.exited[]", what);
      if (!ok)
        return bad(what);
      if (e.allocation_id.empty())
        return bad("hello.exited[].allocation_id: required");
      e.exit_code = code;
      h.exited.push_back(std::move(e));
    }
  }
  return {};
}

} // namespace

caf::error parse_agent_frame(const std::string& text, agent_frame& out) {
  out = agent_frame{};
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return bad("not a JSON object");
  std::string what;
  if (!text_at(j, "type", out.type, "", "frame", what))
    return bad(what);
  const auto& type = out.type;
  if (type == "hello")
    return parse_hello_fields(j, out.hello);
  if (type == "running" || type == "exited") {
    if (!text_at(j, "allocation_id", out.allocation_id, "", type, what))
      return bad(what);
    if (type == "exited"
        && !whole_at<int32_t>(j, "exit_code", out.exit_code, -1,
                              std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int32_t>::max(), type, what))
      return bad(what);
    return {};
  }
  if (type == "log") {
    if (!whole_at<int64_t>(j, "trial_id", out.trial_id, 0, 0,
                           std::numeric_limits<int64_t>::max(), type, what))
      return bad(what);
    // A task's lines (trial_id 0) are known by their allocation.
    if (!text_at(j, "allocation_id", out.allocation_id, "", type, what))
      return bad(what);
    if (auto l = j.find("lines"); l != j.end() && l->is_array())
      for (const auto& line : *l)
        if (line.is_string())
          out.lines.push_back(line.get<std::string>());
    return {};
  }
  return {};
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

std::map<std::string, std::string>
task_environment(const start_request& s, const std::string& master_url,
                 const std::string& agent_id) {
  std::map<std::string, std::string> env;
  env["DET_MASTER"] = master_url;
  env["DET_AGENT_ID"] = agent_id;
  env["DET_TASK_ID"] = s.task_id;
  env["DET_TASK_TYPE"] = s.task_type;
  env["DET_CONTAINER_ID"] = s.allocation_id;
  env["DET_RESOURCES_ID"] = s.allocation_id;
  env["DET_ALLOCATION_ID"] = s.allocation_id;
  env["DET_SLOT_IDS"] = json(s.slots).dump();
  for (auto& [k, v] : s.env)
    env[k] = v;
  return env;
}

} // namespace det::agent
