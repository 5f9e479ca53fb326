#pragma once

// Persisted events of webhooks: the records (created or edited, deleted)
// and their deliveries (due, then ended). Included by messages/events.hpp
// (the catalogue); the rules there apply (past tense, never renamed, new
// fields at the end). All of them belong to stream "webhook/<id>".
//
// A delivery is decided with the event that causes it (an experiment's
// state change, a trial's log line, a custom alert): webhook_delivery_due
// holds the payload as it will be sent, so a master restarted before
// webhook_delivery_ended sends the same body again (docs/webhooks.md).
// The signing key is never in the log.

#include "messages/event_definition.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace det {

inline const std::vector<std::string>& webhook_trigger_types() {
  static const std::vector<std::string> xs{"EXPERIMENT_STATE_CHANGE",
                                           "TASK_LOG", "CUSTOM"};
  return xs;
}

/// A webhook was created (a new id) or changed. `webhook_type`: DEFAULT or
/// SLACK; `mode`: WORKSPACE or SPECIFIC; `workspace_id` 0: every
/// workspace. `triggers`: [{"id", "trigger_type", "condition"}], with
/// trigger_type EXPERIMENT_STATE_CHANGE ({"state"}), TASK_LOG ({"regex"})
/// or CUSTOM ({}).
struct webhook_saved {
  static constexpr const char* type_name = "webhook_saved";
  static constexpr int32_t version = 1;
  int64_t webhook_id = 0;
  std::string name;
  std::string url;
  std::string webhook_type;
  std::string mode;
  int64_t workspace_id = 0;
  nlohmann::json triggers = nlohmann::json::array();
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("webhook_id", webhook_id);
    f.opt("name", name);
    f.req("url", url);
    f.req("webhook_type", webhook_type);
    f.req("mode", mode);
    f.opt("workspace_id", workspace_id);
    f.req("triggers", triggers);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_positive("webhook_id", webhook_id);
    require_non_empty("url", url);
    require_one_of("webhook_type", webhook_type, {"DEFAULT", "SLACK"});
    require_one_of("mode", mode, {"WORKSPACE", "SPECIFIC"});
    if (workspace_id < 0)
      throw field_error("field 'workspace_id': must not be negative");
    if (!triggers.is_array() || triggers.empty())
      throw field_error("field 'triggers': expected a non-empty list");
    for (const auto& t : triggers) {
      require_object(t, "field 'triggers[]'");
      auto id = t.find("id");
      if (id == t.end() || !id->is_number_integer() || id->get<int64_t>() < 1)
        throw field_error("field 'triggers[].id': expected a positive integer");
      auto type = t.find("trigger_type");
      if (type == t.end() || !type->is_string())
        throw field_error("field 'triggers[].trigger_type': expected a string");
      require_one_of("triggers[].trigger_type", type->get<std::string>(),
                     webhook_trigger_types());
      auto c = t.find("condition");
      if (c == t.end())
        throw field_error("field 'triggers[].condition': is required");
      require_object(*c, "field 'triggers[].condition'");
    }
  }
  std::string stream() const { return "webhook/" + std::to_string(webhook_id); }
};

/// A webhook was deleted; its deliveries not yet ended are dropped.
struct webhook_deleted {
  static constexpr const char* type_name = "webhook_deleted";
  static constexpr int32_t version = 1;
  int64_t webhook_id = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("webhook_id", webhook_id);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const { require_positive("webhook_id", webhook_id); }
  std::string stream() const { return "webhook/" + std::to_string(webhook_id); }
};

/// Delivery `delivery_id` of `payload` to the webhook's URL is due, caused
/// by trigger `trigger_id` (of `trigger_type`) for experiment
/// `experiment_id` (and trial `trial_id`, 0 for none).
struct webhook_delivery_due {
  static constexpr const char* type_name = "webhook_delivery_due";
  static constexpr int32_t version = 1;
  int64_t delivery_id = 0;
  int64_t webhook_id = 0;
  int64_t trigger_id = 0;
  std::string trigger_type;
  int64_t experiment_id = 0;
  int64_t trial_id = 0;
  nlohmann::json payload = nlohmann::json::object();
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("delivery_id", delivery_id);
    f.req("webhook_id", webhook_id);
    f.req("trigger_id", trigger_id);
    f.req("trigger_type", trigger_type);
    f.opt("experiment_id", experiment_id);
    f.opt("trial_id", trial_id);
    f.req("payload", payload);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_positive("delivery_id", delivery_id);
    require_positive("webhook_id", webhook_id);
    require_positive("trigger_id", trigger_id);
    require_one_of("trigger_type", trigger_type, webhook_trigger_types());
    require_object(payload, "field 'payload'");
  }
  std::string stream() const { return "webhook/" + std::to_string(webhook_id); }
};

/// Delivery `delivery_id` ended: `delivered` (a 2xx/3xx answer) or given up
/// after `attempts` (the last HTTP `status`, 0 for none, and `reason`).
struct webhook_delivery_ended {
  static constexpr const char* type_name = "webhook_delivery_ended";
  static constexpr int32_t version = 1;
  int64_t delivery_id = 0;
  int64_t webhook_id = 0;
  bool delivered = false;
  int32_t attempts = 0;
  int32_t status = 0;
  std::string reason;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("delivery_id", delivery_id);
    f.req("webhook_id", webhook_id);
    f.req("delivered", delivered);
    f.opt("attempts", attempts);
    f.opt("status", status);
    f.opt("reason", reason);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_positive("delivery_id", delivery_id);
    require_positive("webhook_id", webhook_id);
  }
  std::string stream() const { return "webhook/" + std::to_string(webhook_id); }
};

using webhook_event_family =
    event_family<webhook_saved, webhook_deleted, webhook_delivery_due,
                 webhook_delivery_ended>;

} // namespace det
