#include "messages/events.hpp"

#include "messages/event_payloads.hpp"

#include "messages/errc.hpp"
#include "messages/json_fields.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

namespace det {

using nlohmann::json;

namespace {

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
std::string stream(const experiment_model_stored& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const experiment_state_changed& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const experiment_edited& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const experiment_resources_changed& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const experiment_deleted& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const cluster_message_set&) {
  return "cluster";
}
std::string stream(const experiment_gc_policy_changed& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const experiment_continued& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const log_retention_set& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const runs_archived& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const runs_deleted& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const trial_log_policy_matched& x) {
  return "trial/" + std::to_string(x.trial_id);
}
std::string stream(const unmanaged_trial_created& x) {
  return "trial/" + std::to_string(x.trial_id);
}
std::string stream(const unmanaged_trial_state_set& x) {
  return "trial/" + std::to_string(x.trial_id);
}
std::string stream(const experiment_archived& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const checkpoints_deletion_requested& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const checkpoints_deleted& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const checkpoint_files_removal_requested& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const checkpoint_files_removed& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const checkpoint_metadata_set& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const experiment_searcher_updated& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const workspace_saved& x) {
  return "workspace/" + std::to_string(x.workspace_id);
}
std::string stream(const workspace_deleted& x) {
  return "workspace/" + std::to_string(x.workspace_id);
}
std::string stream(const project_saved& x) {
  return "project/" + std::to_string(x.project_id);
}
std::string stream(const project_deleted& x) {
  return "project/" + std::to_string(x.project_id);
}
std::string stream(const experiment_moved& x) {
  return "experiment/" + std::to_string(x.experiment_id);
}
std::string stream(const template_saved& x) {
  return "template/" + x.name;
}
std::string stream(const template_deleted& x) {
  return "template/" + x.name;
}
std::string stream(const pool_bindings_set& x) {
  return "pool/" + x.pool;
}
std::string stream(const workspace_namespace_bound& x) {
  return "workspace/" + std::to_string(x.workspace_id);
}
std::string stream(const config_policies_set& x) {
  return x.workspace_id == 0 ? std::string{"config_policies/global"}
                             : "workspace/" + std::to_string(x.workspace_id);
}
std::string stream(const model_saved& x) {
  return "model/" + std::to_string(x.model_id);
}
std::string stream(const model_deleted& x) {
  return "model/" + std::to_string(x.model_id);
}
std::string stream(const model_version_saved& x) {
  return "model/" + std::to_string(x.model_id);
}
std::string stream(const model_version_deleted& x) {
  return "model/" + std::to_string(x.model_id);
}
std::string webhook_stream(int64_t id) {
  return "webhook/" + std::to_string(id);
}
std::string stream(const webhook_saved& x) {
  return webhook_stream(x.webhook_id);
}
std::string stream(const webhook_deleted& x) {
  return webhook_stream(x.webhook_id);
}
std::string stream(const webhook_delivery_due& x) {
  return webhook_stream(x.webhook_id);
}
std::string stream(const webhook_delivery_ended& x) {
  return webhook_stream(x.webhook_id);
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
std::string stream(const slot_disabled& x) {
  return agent_stream(x.agent_id);
}
std::string stream(const slot_enabled& x) {
  return agent_stream(x.agent_id);
}
std::string stream(const agent_slots_changed& x) {
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
  payload::read(j, x);
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
        return event_envelope{x.type_name, x.version, payload::write(x).dump()};
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
    std::visit([](const auto& x) { payload::validate(x); }, ev);
  } catch (const field_error& e) {
    return make_error(errc::invalid_event,
                      std::string{type_name_of(ev)} + ": " + e.what());
  }
  return {};
}

void visit_fields(domain_event& ev, const event_field_visitor& v) {
  std::visit(
      [&](auto& x) {
        payload::field_walker w{v};
        payload::fields(w, x);
      },
      ev);
}

namespace {

/// Free text (reasons, messages, a user's description and notes) may span
/// lines and be longer; every other text field is a name or an id, and
/// some are part of a stream's name.
util::text_rules storable_rules(std::string_view key) {
  if (key == "reason" || key == "message" || key == "line" || key == "pattern")
    return {4096, true, true};
  if (key == "description" || key == "comment")
    return {16 * 1024, true, true};
  if (key == "notes")
    return {64 * 1024, true, true};
  if (key == "url")
    return {2048, false, true};
  return {255, false, true};
}

} // namespace

void fit_prose(domain_event& ev) {
  event_field_visitor v;
  v.text = [](const char* key, std::string& value) {
    auto rules = storable_rules(key);
    if (rules.multiline && !util::text_problem(value, rules).empty())
      value = util::fit_text(value, rules);
  };
  visit_fields(ev, v);
}

caf::error storable(const domain_event& ev) {
  std::string why;
  event_field_visitor v;
  v.text = [&](const char* key, std::string& value) {
    if (why.empty())
      if (auto p = util::text_problem(value, storable_rules(key)); !p.empty())
        why = std::string{"field '"} + key + "' " + p;
  };
  v.document = [&](const char* key, json& value) {
    if (why.empty())
      why = json_problem(value, key);
  };
  v.number = [&](const char* key, double& value) {
    if (why.empty() && !std::isfinite(value))
      why = std::string{"field '"} + key + "' is not a finite number";
  };
  // The visitor only reads here.
  visit_fields(const_cast<domain_event&>(ev), v);
  if (!why.empty())
    return make_error(errc::invalid_argument,
                      std::string{type_name_of(ev)} + " " + why);
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

bool operator==(const pool_configured& a, const pool_configured& b) {
  return payload::write(a) == payload::write(b);
}

} // namespace det
