#pragma once

// The commands on webhooks (core/webhooks.hpp), members of `command`
// (core/commands.hpp): an admin's or a workspace owner's create, patch and
// delete, a trial's custom alert, and what the webhook runtime
// (api/webhook_runtime) reports. The API builds the users' commands with
// their parse functions (core/webhooks.hpp), which checked every field's
// shape; who may do what, and what exists, the core decides.
// `username` is the caller, `as_admin` whether the caller's session is an
// admin's (never the body's say), both set by the API.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace det {

/// POST /api/v1/webhooks. Reply {id}.
struct webhook_create {
  std::string url = {};
  std::string name = {};
  std::string webhook_type = {}; ///< DEFAULT or SLACK
  std::string mode = {};         ///< WORKSPACE or SPECIFIC
  int64_t workspace_id = 0;      ///< 0: a global webhook
  /// [{trigger_type, condition}], checked; the core numbers them.
  nlohmann::json triggers = nlohmann::json::array();
  bool as_admin = false;
  std::string username = {};
};

/// PATCH /api/v1/webhooks/{id}: a new URL. Reply {id}.
struct webhook_patch {
  int64_t id = 0;
  std::string url = {};
  bool as_admin = false;
  std::string username = {};
};

/// DELETE /api/v1/webhooks/{id}.
struct webhook_delete {
  int64_t id = 0;
  bool as_admin = false;
  std::string username = {};
};

/// POST /api/v1/webhooks/alert (core_context.alert()): a delivery for each
/// CUSTOM trigger of the webhooks the experiment names; its owner (or a
/// trial of it) or an admin.
struct webhook_alert {
  int64_t experiment_id = 0;
  int64_t trial_id = 0; ///< 0: none
  std::string title = {};
  std::string description = {};
  std::string level = {}; ///< INFO, WARN, ... (without LOG_LEVEL_)
  bool as_admin = false;
  std::string username = {};
};

/// A line of trial `trial_id`'s logs matched TASK_LOG trigger `trigger_id`
/// of webhook `webhook_id`: a delivery, once per trial and trigger.
struct webhook_log_match {
  int64_t webhook_id = 0;
  int64_t trigger_id = 0;
  int64_t trial_id = 0;
  std::string line;
  std::string node;
};

/// Delivery `delivery_id` ended: delivered, or given up after `attempts`
/// (`status` the last HTTP status, `reason` why).
struct webhook_delivery_report {
  int64_t delivery_id = 0;
  bool delivered = false;
  int32_t attempts = 0;
  int32_t status = 0;
  std::string reason;
};

} // namespace det
