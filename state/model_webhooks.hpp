#pragma once

// Webhooks and their deliveries not yet ended. Plain data like
// state/model.hpp; only apply_webhooks.cpp changes them.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace det::state {

struct webhook_info {
  int64_t id = 0;
  std::string name;
  std::string url;
  /// DEFAULT or SLACK.
  std::string webhook_type;
  /// WORKSPACE or SPECIFIC.
  std::string mode;
  /// 0: every workspace.
  int64_t workspace_id = 0;
  /// [{"id", "trigger_type", "condition"}] as webhook_saved holds them.
  nlohmann::json triggers = nlohmann::json::array();
  std::string username;
  int64_t created_at_us = 0;
  /// "<trigger id>/<trial id>" of TASK_LOG triggers that fired: a trigger
  /// fires once per trial (as upstream's per-task dedup).
  std::vector<std::string> log_fired;
};

/// A delivery decided and not yet ended.
struct webhook_delivery_info {
  int64_t id = 0;
  int64_t webhook_id = 0;
  int64_t trigger_id = 0;
  std::string trigger_type{};
  int64_t experiment_id = 0;
  int64_t trial_id = 0;
  nlohmann::json payload = nlohmann::json::object();
  int64_t due_at_us = 0;
};

bool operator==(const webhook_info& a, const webhook_info& b);
bool operator==(const webhook_delivery_info& a, const webhook_delivery_info& b);

} // namespace det::state
