#include "messages/events.hpp"

#include "messages/errc.hpp"
#include "messages/json_fields.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace det {

using nlohmann::json;

namespace {

// -- payload forms ------------------------------------------------------------
//
// One fields() per event type lists its payload fields in order; the same
// list drives writing (payload_writer) and reading (payload_reader), so the
// two cannot disagree. `req` fields must be present; `opt` fields keep the
// struct's default when absent or null. Every field is always written.

struct payload_writer {
  json& out;
  template <class T> void req(const char* key, const T& value) {
    out[key] = encode_value(value);
  }
  template <class T> void opt(const char* key, const T& value) {
    out[key] = encode_value(value);
  }
  template <class T> static json encode_value(const T& value) {
    return json(value);
  }
  static json encode_value(const std::vector<slot_assignment>& xs) {
    json out = json::array();
    for (const auto& a : xs)
      out.push_back({{"agent_id", a.agent_id}, {"slots", a.slots}});
    return out;
  }
};

struct payload_reader {
  const json& in;
  template <class T> void req(const char* key, T& value) {
    value = get_field<T>(in, key);
  }
  template <class T> void opt(const char* key, T& value) {
    value = get_field_or<T>(in, key, value);
  }
  void req(const char* key, std::vector<slot_assignment>& xs) {
    auto list = get_field<json>(in, key);
    if (!list.is_array())
      throw field_error(std::string{"field '"} + key + "': expected a list");
    for (const auto& a : list) {
      require_object(a, "field 'assignments[]'");
      xs.push_back({get_field<std::string>(a, "agent_id"),
                    get_field<std::vector<int64_t>>(a, "slots")});
    }
  }
};

template <class F> void fields(F& f, master_started& x) {
  f.req("cluster_id", x.cluster_id);
  f.opt("host", x.host);
  f.opt("pid", x.pid);
  f.opt("master_version", x.master_version);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, pool_configured& x) {
  f.req("pool", x.pool);
  f.opt("scheduler", x.scheduler);
  f.opt("provider", x.provider);
  f.opt("slots_per_instance", x.slots_per_instance);
  f.opt("min_instances", x.min_instances);
  f.opt("max_instances", x.max_instances);
  f.opt("instance_type", x.instance_type);
  f.opt("spot", x.spot);
  f.opt("max_idle_agent_period_s", x.max_idle_agent_period_s);
  f.opt("max_agent_starting_period_s", x.max_agent_starting_period_s);
  f.opt("agent_reconnect_wait_s", x.agent_reconnect_wait_s);
}

template <class F> void fields(F& f, agent_connected& x) {
  f.req("agent_id", x.agent_id);
  f.req("pool", x.pool);
  f.req("slots", x.slots);
  f.req("slot_type", x.slot_type);
  f.opt("instance_id", x.instance_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, agent_disconnected& x) {
  f.req("agent_id", x.agent_id);
  f.opt("reason", x.reason);
  f.opt("reconnect_deadline_us", x.reconnect_deadline_us);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, agent_lost& x) {
  f.req("agent_id", x.agent_id);
  f.req("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, agent_enabled& x) {
  f.req("agent_id", x.agent_id);
}

template <class F> void fields(F& f, agent_disabled& x) {
  f.req("agent_id", x.agent_id);
  f.opt("drain", x.drain);
}

template <class F> void fields(F& f, instance_launch_requested& x) {
  f.req("pool", x.pool);
  f.req("launch_seq", x.launch_seq);
  f.req("client_token", x.client_token);
  f.req("count", x.count);
  f.opt("spot", x.spot);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, instance_launch_failed& x) {
  f.req("pool", x.pool);
  f.req("launch_seq", x.launch_seq);
  f.req("error_kind", x.error_kind);
  f.opt("message", x.message);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, instance_pending& x) {
  f.req("instance_id", x.instance_id);
  f.req("pool", x.pool);
  f.opt("launch_seq", x.launch_seq);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, instance_running& x) {
  f.req("instance_id", x.instance_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, instance_terminate_requested& x) {
  f.req("instance_id", x.instance_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, instance_terminated& x) {
  f.req("instance_id", x.instance_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, spot_request_opened& x) {
  f.req("request_id", x.request_id);
  f.req("pool", x.pool);
  f.opt("launch_seq", x.launch_seq);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, spot_request_fulfilled& x) {
  f.req("request_id", x.request_id);
  f.req("instance_id", x.instance_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, spot_request_cancelled& x) {
  f.req("request_id", x.request_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, experiment_submitted& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("pool", x.pool);
  f.opt("owner", x.owner);
  f.opt("config", x.config);
  f.opt("priority", x.priority);
  f.opt("weight", x.weight);
  f.opt("max_restarts", x.max_restarts);
  f.opt("slots_per_trial", x.slots_per_trial);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, experiment_state_changed& x) {
  f.req("experiment_id", x.experiment_id);
  f.req("state", x.state);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, experiment_searcher_updated& x) {
  f.req("experiment_id", x.experiment_id);
  f.opt("searcher_state", x.searcher_state);
  f.opt("progress", x.progress);
}

template <class F> void fields(F& f, trial_created& x) {
  f.req("trial_id", x.trial_id);
  f.req("experiment_id", x.experiment_id);
  f.opt("hparams", x.hparams);
  f.opt("request_id", x.request_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_placed& x) {
  f.req("trial_id", x.trial_id);
  f.req("allocation_id", x.allocation_id);
  f.req("assignments", x.assignments);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_running& x) {
  f.req("trial_id", x.trial_id);
  f.req("allocation_id", x.allocation_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_preemption_requested& x) {
  f.req("trial_id", x.trial_id);
  f.req("allocation_id", x.allocation_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_checkpointed& x) {
  f.req("trial_id", x.trial_id);
  f.req("uuid", x.uuid);
  f.req("steps_completed", x.steps_completed);
  f.opt("metadata", x.metadata);
  f.opt("allocation_id", x.allocation_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_metrics_reported& x) {
  f.req("trial_id", x.trial_id);
  f.req("allocation_id", x.allocation_id);
  f.req("kind", x.kind);
  f.req("steps_completed", x.steps_completed);
  f.req("metrics", x.metrics);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_exited& x) {
  f.req("trial_id", x.trial_id);
  f.req("allocation_id", x.allocation_id);
  f.opt("exit_code", x.exit_code);
  f.req("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_restarted& x) {
  f.req("trial_id", x.trial_id);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_errored& x) {
  f.req("trial_id", x.trial_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, trial_canceled& x) {
  f.req("trial_id", x.trial_id);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, user_created& x) {
  f.req("username", x.username);
  f.opt("admin", x.admin);
  f.opt("password_hash", x.password_hash);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, user_password_changed& x) {
  f.req("username", x.username);
  f.req("password_hash", x.password_hash);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, session_started& x) {
  f.req("username", x.username);
  f.req("token_hash", x.token_hash);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, session_ended& x) {
  f.req("username", x.username);
  f.req("token_hash", x.token_hash);
  f.opt("at_us", x.at_us);
}

// -- checks beyond field types ------------------------------------------------

void require_one_of(const char* key, const std::string& value,
                    const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end())
    return;
  std::string list;
  for (const auto& a : allowed)
    list += (list.empty() ? "" : ", ") + a;
  throw field_error(std::string{"field '"} + key + "': expected one of " + list
                    + ", got '" + value + "'");
}

void require_non_negative(const char* key, int64_t value) {
  if (value < 0)
    throw field_error(std::string{"field '"} + key + "': must not be negative");
}

void require_non_empty(const char* key, const std::string& value) {
  if (value.empty())
    throw field_error(std::string{"field '"} + key + "': must not be empty");
}

template <class T> void validate(const T&) {
  // Most payloads need no more than their field types.
}

void validate(const pool_configured& x) {
  require_non_empty("pool", x.pool);
  require_one_of("scheduler", x.scheduler, {"priority", "fair_share"});
  require_one_of("provider", x.provider, {"", "local", "aws"});
  require_non_negative("slots_per_instance", x.slots_per_instance);
  require_non_negative("min_instances", x.min_instances);
  require_non_negative("max_instances", x.max_instances);
  if (x.max_instances < x.min_instances)
    throw field_error("field 'max_instances': must not be below "
                      "min_instances");
  require_non_negative("max_idle_agent_period_s", x.max_idle_agent_period_s);
  require_non_negative("max_agent_starting_period_s",
                       x.max_agent_starting_period_s);
  require_non_negative("agent_reconnect_wait_s", x.agent_reconnect_wait_s);
}

void validate(const agent_connected& x) {
  require_non_empty("agent_id", x.agent_id);
  require_non_negative("slots", x.slots);
  // A bound so that a corrupt payload cannot make the state allocate
  // billions of slots; no machine has more devices than this.
  if (x.slots > 4096)
    throw field_error("field 'slots': more than 4096");
  require_one_of("slot_type", x.slot_type, {"cpu", "cuda", "rocm"});
}

void validate(const agent_lost& x) {
  require_one_of("reason", x.reason, agent_lost_reasons());
}

void validate(const instance_launch_requested& x) {
  require_non_empty("client_token", x.client_token);
  if (x.count < 1)
    throw field_error("field 'count': must be at least 1");
}

void validate(const instance_launch_failed& x) {
  require_one_of("error_kind", x.error_kind, launch_error_kinds());
}

void validate(const instance_pending& x) {
  require_non_empty("instance_id", x.instance_id);
}

void validate(const spot_request_fulfilled& x) {
  require_non_empty("instance_id", x.instance_id);
}

void validate(const experiment_submitted& x) {
  require_object(x.config, "field 'config'");
  if (x.slots_per_trial < 1)
    throw field_error("field 'slots_per_trial': must be at least 1");
  require_non_negative("max_restarts", x.max_restarts);
  if (!(x.weight > 0))
    throw field_error("field 'weight': must be positive");
}

void validate(const experiment_state_changed& x) {
  require_one_of("state", x.state, experiment_states());
}

void validate(const experiment_searcher_updated& x) {
  if (!(x.progress >= 0.0 && x.progress <= 1.0))
    throw field_error("field 'progress': must be within [0, 1]");
}

void validate(const trial_created& x) {
  require_object(x.hparams, "field 'hparams'");
}

void validate(const trial_checkpointed& x) {
  require_non_empty("uuid", x.uuid);
  require_non_negative("steps_completed", x.steps_completed);
}

void validate(const trial_metrics_reported& x) {
  require_one_of("kind", x.kind, {"training", "validation"});
  require_non_negative("steps_completed", x.steps_completed);
  require_object(x.metrics, "field 'metrics'");
}

void validate(const trial_exited& x) {
  require_one_of("reason", x.reason, trial_exit_reasons());
}

void validate(const user_created& x) {
  require_non_empty("username", x.username);
}

/// A token hash is a hex SHA-256: 64 lower-case hex digits.
void require_token_hash(const std::string& h) {
  bool hex = h.size() == 64
             && std::all_of(h.begin(), h.end(), [](char c) {
                  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                });
  if (!hex)
    throw field_error("field 'token_hash': expected 64 hex digits");
}

void validate(const session_started& x) {
  require_non_empty("username", x.username);
  require_token_hash(x.token_hash);
}

void validate(const session_ended& x) {
  require_token_hash(x.token_hash);
}

template <class T> json write(const T& x) {
  json out = json::object();
  payload_writer w{out};
  // The writer only reads the fields; fields() takes them mutable so one
  // list serves both directions.
  fields(w, const_cast<T&>(x));
  return out;
}

template <class T> void read(const json& j, T& x) {
  payload_reader r{j};
  fields(r, x);
  validate(x);
}

// -- streams ----------------------------------------------------------------

std::string stream(const master_started&) {
  return "cluster";
}
std::string stream(const pool_configured& x) {
  return "pool/" + x.pool;
}
std::string stream(const instance_launch_requested& x) {
  return "pool/" + x.pool;
}
std::string stream(const instance_launch_failed& x) {
  return "pool/" + x.pool;
}
std::string stream(const experiment_submitted& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const experiment_state_changed& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const experiment_searcher_updated& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const spot_request_opened& x) {
  return "instance/" + x.request_id;
}
std::string stream(const spot_request_fulfilled& x) {
  return "instance/" + x.request_id;
}
std::string stream(const spot_request_cancelled& x) {
  return "instance/" + x.request_id;
}
std::string agent_stream(const std::string& id) {
  return "agent/" + id;
}
std::string stream(const agent_connected& x) {
  return agent_stream(x.agent_id);
}
std::string stream(const agent_disconnected& x) {
  return agent_stream(x.agent_id);
}
std::string stream(const agent_lost& x) {
  return agent_stream(x.agent_id);
}
std::string stream(const agent_enabled& x) {
  return agent_stream(x.agent_id);
}
std::string stream(const agent_disabled& x) {
  return agent_stream(x.agent_id);
}
template <class T>
auto stream(const T& x) -> decltype(x.username, std::string{}) {
  return "user/" + x.username;
}
template <class T>
auto stream(const T& x) -> decltype(x.instance_id, std::string{}) {
  return "instance/" + x.instance_id;
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

template <class T> domain_event decode_as(const json& j) {
  T x;
  read(j, x);
  return x;
}

template <size_t... Is>
std::unordered_map<std::string, type_entry>
make_table(std::index_sequence<Is...>) {
  std::unordered_map<std::string, type_entry> out;
  (out.emplace(
       std::variant_alternative_t<Is, domain_event>::type_name,
       type_entry{std::variant_alternative_t<Is, domain_event>::version,
                  &decode_as<std::variant_alternative_t<Is, domain_event>>}),
   ...);
  return out;
}

const std::unordered_map<std::string, type_entry>& table() {
  static const auto t =
      make_table(std::make_index_sequence<std::variant_size_v<domain_event>>{});
  return t;
}

// `where` names the event in errors; built only when one occurs. `parsed`,
// when not null, is the payload already parsed.
template <class Where>
caf::expected<domain_event> decode_impl(const event_envelope& env,
                                        const Where& where,
                                        const json* parsed = nullptr) {
  auto i = table().find(env.type);
  if (i == table().end())
    return make_error(errc::unknown_event_type,
                      where() + ": unknown event type '" + env.type + "'");
  auto fail = [&](const std::string& why) {
    return make_error(errc::invalid_event,
                      where() + ": " + env.type + " v"
                          + std::to_string(env.schema_version) + ": " + why);
  };
  if (env.schema_version < 1 || env.schema_version > i->second.version)
    return fail("schema version not supported (this binary knows 1.."
                + std::to_string(i->second.version) + ")");
  json local;
  if (parsed == nullptr || parsed->is_null()) {
    try {
      local = json::parse(env.payload);
    } catch (const json::exception& e) {
      return fail(std::string{"payload is not valid JSON: "} + e.what());
    }
    parsed = &local;
  }
  if (!parsed->is_object())
    return fail(std::string{"payload must be an object, got "}
                + parsed->type_name());
  try {
    if (env.schema_version < i->second.version) {
      auto up = upcast(env.type, env.schema_version, *parsed);
      if (!up)
        return fail(render(up.error()));
      return i->second.decode(*up);
    }
    return i->second.decode(*parsed);
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
  auto where = [&rec] {
    return "event at position " + std::to_string(rec.position) + " (stream "
           + rec.stream + ")";
  };
  return decode_impl(rec.body, where, &rec.parsed);
}

caf::expected<domain_event> decode(const event_envelope& env,
                                   const std::string& where) {
  return decode_impl(env, [&where] { return where; });
}

caf::error validate(const domain_event& ev) {
  try {
    std::visit([](const auto& x) { validate(x); }, ev);
  } catch (const field_error& e) {
    return make_error(errc::invalid_event,
                      std::string{type_name_of(ev)} + ": " + e.what());
  }
  return {};
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
      return make_error(errc::invalid_event, "no upcaster for " + type
                                                 + " from version "
                                                 + std::to_string(v));
    payload = u->second[static_cast<size_t>(v - 1)](std::move(payload));
  }
  return payload;
}

const std::vector<std::string>& experiment_states() {
  static const std::vector<std::string> xs{"ACTIVE",
                                           "PAUSED",
                                           "STOPPING_COMPLETED",
                                           "STOPPING_CANCELED",
                                           "STOPPING_KILLED",
                                           "STOPPING_ERROR",
                                           "COMPLETED",
                                           "CANCELED",
                                           "ERROR"};
  return xs;
}

const std::vector<std::string>& trial_exit_reasons() {
  static const std::vector<std::string> xs{
      "completed", "killed",     "failed",        "preempted",
      "paused",    "agent_lost", "spot_reclaimed"};
  return xs;
}

const std::vector<std::string>& agent_lost_reasons() {
  static const std::vector<std::string> xs{"reconnect_timeout",
                                           "spot_reclaimed",
                                           "instance_terminated", "shut_down"};
  return xs;
}

const std::vector<std::string>& launch_error_kinds() {
  static const std::vector<std::string> xs{"insufficient_capacity",
                                           "quota_exceeded",
                                           "unauthorized",
                                           "invalid_request",
                                           "unavailable",
                                           "partial",
                                           "other"};
  return xs;
}

std::vector<std::pair<std::string, int32_t>> known_event_types() {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const auto& [name, entry] : table())
    out.emplace_back(name, entry.version);
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace det
