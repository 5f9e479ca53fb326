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

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace det {

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
};

/// A webhook was deleted; its deliveries not yet ended are dropped.
struct webhook_deleted {
  static constexpr const char* type_name = "webhook_deleted";
  static constexpr int32_t version = 1;
  int64_t webhook_id = 0;
  std::string username;
  int64_t at_us = 0;
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
};

} // namespace det
