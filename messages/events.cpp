#include "messages/events.hpp"

#include "messages/errc.hpp"
#include "messages/json_fields.hpp"

#include <functional>
#include <unordered_map>

namespace det {

using nlohmann::json;

namespace {

// -- payload forms, one pair per event type --------------------------------

json write(const master_started& x) {
  return {{"cluster_id", x.cluster_id},
          {"host", x.host},
          {"pid", x.pid},
          {"master_version", x.master_version}};
}
void read(const json& j, master_started& x) {
  x.cluster_id = get_field<std::string>(j, "cluster_id");
  x.host = get_field_or<std::string>(j, "host", "");
  x.pid = get_field_or<int64_t>(j, "pid", 0);
  x.master_version = get_field_or<std::string>(j, "master_version", "");
}

json write(const pool_configured& x) {
  return {{"pool", x.pool},
          {"scheduler", x.scheduler},
          {"provider", x.provider},
          {"slots_per_instance", x.slots_per_instance},
          {"min_instances", x.min_instances},
          {"max_instances", x.max_instances}};
}
void read(const json& j, pool_configured& x) {
  x.pool = get_field<std::string>(j, "pool");
  x.scheduler = get_field_or<std::string>(j, "scheduler", "priority");
  if (x.scheduler != "priority" && x.scheduler != "fair_share")
    throw field_error("field 'scheduler': expected priority or fair_share, "
                      "got '" + x.scheduler + "'");
  x.provider = get_field_or<std::string>(j, "provider", "");
  x.slots_per_instance = get_field_or<int32_t>(j, "slots_per_instance", 0);
  x.min_instances = get_field_or<int32_t>(j, "min_instances", 0);
  x.max_instances = get_field_or<int32_t>(j, "max_instances", 0);
}

json write(const agent_connected& x) {
  return {{"agent_id", x.agent_id},
          {"pool", x.pool},
          {"slots", x.slots},
          {"slot_type", x.slot_type},
          {"instance_id", x.instance_id}};
}
void read(const json& j, agent_connected& x) {
  x.agent_id = get_field<std::string>(j, "agent_id");
  x.pool = get_field<std::string>(j, "pool");
  x.slots = get_field<int32_t>(j, "slots");
  if (x.slots < 0)
    throw field_error("field 'slots': must not be negative");
  x.slot_type = get_field<std::string>(j, "slot_type");
  x.instance_id = get_field_or<std::string>(j, "instance_id", "");
}

json write(const agent_disconnected& x) {
  return {{"agent_id", x.agent_id}, {"reason", x.reason}};
}
void read(const json& j, agent_disconnected& x) {
  x.agent_id = get_field<std::string>(j, "agent_id");
  x.reason = get_field_or<std::string>(j, "reason", "");
}

json write(const experiment_submitted& x) {
  return {{"experiment_id", x.experiment_id},
          {"pool", x.pool},
          {"owner", x.owner},
          {"config", x.config},
          {"priority", x.priority},
          {"weight", x.weight},
          {"max_restarts", x.max_restarts},
          {"slots_per_trial", x.slots_per_trial}};
}
void read(const json& j, experiment_submitted& x) {
  x.experiment_id = get_field<int64_t>(j, "experiment_id");
  x.pool = get_field<std::string>(j, "pool");
  x.owner = get_field_or<std::string>(j, "owner", "");
  x.config = get_field_or<json>(j, "config", json::object());
  require_object(x.config, "field 'config'");
  x.priority = get_field_or<int32_t>(j, "priority", 42);
  x.weight = get_field_or<double>(j, "weight", 1.0);
  x.max_restarts = get_field_or<int32_t>(j, "max_restarts", 5);
  x.slots_per_trial = get_field_or<int32_t>(j, "slots_per_trial", 1);
}

json write(const experiment_state_changed& x) {
  return {{"experiment_id", x.experiment_id},
          {"state", x.state},
          {"reason", x.reason}};
}
void read(const json& j, experiment_state_changed& x) {
  x.experiment_id = get_field<int64_t>(j, "experiment_id");
  x.state = get_field<std::string>(j, "state");
  x.reason = get_field_or<std::string>(j, "reason", "");
}

json write(const trial_created& x) {
  return {{"trial_id", x.trial_id},
          {"experiment_id", x.experiment_id},
          {"hparams", x.hparams}};
}
void read(const json& j, trial_created& x) {
  x.trial_id = get_field<int64_t>(j, "trial_id");
  x.experiment_id = get_field<int64_t>(j, "experiment_id");
  x.hparams = get_field_or<json>(j, "hparams", json::object());
}

json write(const trial_placed& x) {
  json assignments = json::array();
  for (const auto& a : x.assignments)
    assignments.push_back({{"agent_id", a.agent_id}, {"slots", a.slots}});
  return {{"trial_id", x.trial_id},
          {"allocation_id", x.allocation_id},
          {"assignments", std::move(assignments)}};
}
void read(const json& j, trial_placed& x) {
  x.trial_id = get_field<int64_t>(j, "trial_id");
  x.allocation_id = get_field<std::string>(j, "allocation_id");
  auto assignments = get_field<json>(j, "assignments");
  if (!assignments.is_array())
    throw field_error("field 'assignments': expected a list");
  for (const auto& a : assignments) {
    require_object(a, "field 'assignments[]'");
    x.assignments.push_back({get_field<std::string>(a, "agent_id"),
                             get_field<std::vector<int64_t>>(a, "slots")});
  }
}

json write(const trial_checkpointed& x) {
  return {{"trial_id", x.trial_id},
          {"uuid", x.uuid},
          {"steps_completed", x.steps_completed},
          {"metadata", x.metadata}};
}
void read(const json& j, trial_checkpointed& x) {
  x.trial_id = get_field<int64_t>(j, "trial_id");
  x.uuid = get_field<std::string>(j, "uuid");
  x.steps_completed = get_field<int64_t>(j, "steps_completed");
  x.metadata = get_field_or<json>(j, "metadata", json::object());
}

json write(const trial_exited& x) {
  return {{"trial_id", x.trial_id},
          {"allocation_id", x.allocation_id},
          {"exit_code", x.exit_code},
          {"reason", x.reason}};
}
void read(const json& j, trial_exited& x) {
  x.trial_id = get_field<int64_t>(j, "trial_id");
  x.allocation_id = get_field<std::string>(j, "allocation_id");
  x.exit_code = get_field_or<int32_t>(j, "exit_code", 0);
  x.reason = get_field<std::string>(j, "reason");
}

// -- streams ----------------------------------------------------------------

std::string stream(const master_started&) { return "cluster"; }
std::string stream(const pool_configured& x) { return "pool/" + x.pool; }
std::string stream(const agent_connected& x) { return "agent/" + x.agent_id; }
std::string stream(const agent_disconnected& x) {
  return "agent/" + x.agent_id;
}
std::string stream(const experiment_submitted& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const experiment_state_changed& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
template <class T>
auto stream(const T& x) -> decltype(x.trial_id, std::string{}) {
  return "trial/" + std::to_string(x.trial_id);
}

// -- upcasters: upcasters[type][i] lifts version i+1 to i+2 -----------------

using upcaster = std::function<json(json)>;

const std::unordered_map<std::string, std::vector<upcaster>>& upcasters() {
  static const std::unordered_map<std::string, std::vector<upcaster>> table{
    {"agent_connected",
     {// v1 -> v2: "resource_pool" became "pool"; slot_type added (v1
      // agents only ever reported CPU slots).
      [](json j) {
        if (j.contains("resource_pool")) {
          j["pool"] = j["resource_pool"];
          j.erase("resource_pool");
        }
        if (!j.contains("slot_type"))
          j["slot_type"] = "cpu";
        return j;
      }}},
  };
  return table;
}

// -- the decoder table, built from domain_event's alternatives --------------

struct type_entry {
  int32_t version;
  domain_event (*decode)(const json&);
};

template <class T>
domain_event decode_as(const json& j) {
  T x;
  read(j, x);
  return x;
}

template <size_t... Is>
std::unordered_map<std::string, type_entry>
make_table(std::index_sequence<Is...>) {
  std::unordered_map<std::string, type_entry> out;
  (out.emplace(std::variant_alternative_t<Is, domain_event>::type_name,
               type_entry{std::variant_alternative_t<Is, domain_event>::version,
                          &decode_as<
                            std::variant_alternative_t<Is, domain_event>>}),
   ...);
  return out;
}

const std::unordered_map<std::string, type_entry>& table() {
  static const auto t = make_table(
    std::make_index_sequence<std::variant_size_v<domain_event>>{});
  return t;
}

caf::expected<domain_event> decode_impl(const event_envelope& env,
                                        const std::string& where) {
  auto i = table().find(env.type);
  if (i == table().end())
    return make_error(errc::unknown_event_type,
                      where + ": unknown event type '" + env.type + "'");
  auto fail = [&](const std::string& why) {
    return make_error(errc::invalid_event, where + ": " + env.type + " v"
                                             + std::to_string(env.schema_version)
                                             + ": " + why);
  };
  if (env.schema_version < 1 || env.schema_version > i->second.version)
    return fail("schema version not supported (this binary knows 1.."
                + std::to_string(i->second.version) + ")");
  json j;
  try {
    j = json::parse(env.payload);
  } catch (const json::exception& e) {
    return fail(std::string{"payload is not valid JSON: "} + e.what());
  }
  if (!j.is_object())
    return fail(std::string{"payload must be an object, got "} + j.type_name());
  try {
    if (env.schema_version < i->second.version) {
      auto up = upcast(env.type, env.schema_version, std::move(j));
      if (!up)
        return fail(render(up.error()));
      j = std::move(*up);
    }
    return i->second.decode(j);
  } catch (const field_error& e) {
    return fail(e.what());
  } catch (const json::exception& e) {
    return fail(e.what());
  }
}

} // namespace

const char* type_name_of(const domain_event& ev) {
  return std::visit([](const auto& x) { return x.type_name; }, ev);
}

std::string stream_of(const domain_event& ev) {
  return std::visit([](const auto& x) { return stream(x); }, ev);
}

event_envelope to_envelope(const domain_event& ev) {
  return std::visit(
    [](const auto& x) {
      return event_envelope{x.type_name, x.version, write(x).dump()};
    },
    ev);
}

new_event to_new_event(const domain_event& ev) {
  return new_event{stream_of(ev), to_envelope(ev)};
}

caf::expected<domain_event> decode(const recorded_event& rec) {
  return decode_impl(rec.body, "event at position "
                                 + std::to_string(rec.position) + " (stream "
                                 + rec.stream + ")");
}

caf::expected<domain_event> decode(const event_envelope& env,
                                   const std::string& where) {
  return decode_impl(env, where);
}

caf::expected<json> upcast(const std::string& type, int32_t from_version,
                           json payload) {
  auto i = table().find(type);
  if (i == table().end())
    return make_error(errc::unknown_event_type,
                      "unknown event type '" + type + "'");
  const auto& ups = upcasters();
  auto u = ups.find(type);
  for (auto v = from_version; v < i->second.version; ++v) {
    if (u == ups.end() || static_cast<size_t>(v - 1) >= u->second.size())
      return make_error(errc::invalid_event,
                        "no upcaster for " + type + " from version "
                          + std::to_string(v));
    payload = u->second[static_cast<size_t>(v - 1)](std::move(payload));
  }
  return payload;
}

std::vector<std::pair<std::string, int32_t>> known_event_types() {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const auto& [name, entry] : table())
    out.emplace_back(name, entry.version);
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace det
