#pragma once

// Webhooks as plain code: the users' commands (core/commands_webhooks.hpp:
// create, patch, delete, a custom alert), their parse functions, and the
// deliveries their triggers decide, each a webhook_delivery_due holding
// the body to send (upstream's JSON for DEFAULT webhooks, a Slack message
// for SLACK ones). Pure functions of the master's state and the time
// passed in; master_core calls them (its on() for the commands, emit()
// for experiment state changes).
//
// The parse functions read upstream's JSON spelling (url, webhookType,
// triggers, mode, name, workspaceId; experimentId, trialId, data: {title,
// description, level}) and refuse naming the field; the deciders check
// what exists and who may: admins, or a workspace's owner for its own
// webhooks; an alert, the experiment's owner (or a trial of it) or an
// admin.

#include "core/commands.hpp"
#include "core/records.hpp"
#include "messages/events.hpp"
#include "state/cluster_state.hpp"

#include <caf/expected.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace det {

/// Longest TASK_LOG regex accepted (bytes).
constexpr size_t max_webhook_regex = 1024;

/// {url, webhookType, triggers, mode, name, workspaceId}, from a caller
/// who is an admin or not (`as_admin`, the session's say): a global
/// webhook of a non-admin is refused before its triggers are read, as
/// upstream does.
caf::expected<webhook_create> parse_webhook_create(const nlohmann::json& b,
                                                   bool as_admin);
/// {id, url}.
caf::expected<webhook_patch> parse_webhook_patch(const nlohmann::json& b);
/// {id}.
caf::expected<webhook_delete> parse_webhook_delete(const nlohmann::json& b);
/// {experimentId, trialId, data: {title, description, level}}.
caf::expected<webhook_alert> parse_webhook_alert(const nlohmann::json& b);

// The deciders: the events, the reply ({id} for create and patch), or the
// refusal.
record_outcome decide_record(const state::cluster_state& s,
                             const webhook_create& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const webhook_patch& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const webhook_delete& c, int64_t now_us);
record_outcome decide_record(const state::cluster_state& s,
                             const webhook_alert& c, int64_t now_us);

/// The command webhook_log_match: the delivery it causes, once per trial
/// and trigger; nothing for a webhook, trigger or trial gone meanwhile, or
/// a webhook that does not apply to the trial's experiment.
std::optional<webhook_delivery_due>
log_match_delivery(const state::cluster_state& s, const webhook_log_match& c,
                   int64_t now_us);

/// The command webhook_delivery_report: webhook_delivery_ended, or nothing
/// for a delivery whose webhook was deleted meanwhile.
std::optional<webhook_delivery_ended>
delivery_end(const state::cluster_state& s, const webhook_delivery_report& c,
             int64_t now_us);

/// The deliveries experiment `experiment_id` moving to `state` causes
/// (EXPERIMENT_STATE_CHANGE triggers whose condition names it), with ids
/// from s.last_webhook_delivery_id + 1 on.
std::vector<webhook_delivery_due>
state_change_deliveries(const state::cluster_state& s, int64_t experiment_id,
                        const std::string& state, int64_t now_us);

/// Whether webhook `w` fires for experiment `e` (its workspace, its mode,
/// and the experiment's integrations.webhooks: exclude, webhook_id,
/// webhook_name), as upstream's matchWebhook.
bool webhook_applies(const state::cluster_state& s,
                     const state::webhook_info& w,
                     const state::experiment_info& e);

/// A webhook as upstream's v1Webhook JSON (ids, triggers with their
/// webhookId, enums in proto spelling).
nlohmann::json webhook_json(const state::webhook_info& w);

// -- payloads (core/webhook_payloads.cpp) -------------------------------------

/// A UUID-shaped id for delivery `delivery_id` of the cluster `salt`
/// (the cluster's UUID): the same delivery always gets the same id.
std::string delivery_event_id(int64_t delivery_id, const std::string& salt);

/// Upstream's "event_data.experiment" of `e` at `now_us`.
nlohmann::json experiment_payload(const state::cluster_state& s,
                                  const state::experiment_info& e,
                                  int64_t now_us);

/// The body of a DEFAULT webhook: {event_id, event_type, timestamp,
/// condition, event_data}.
nlohmann::json default_payload(const std::string& event_id,
                               const std::string& event_type, int64_t now_us,
                               nlohmann::json condition,
                               nlohmann::json event_data);

/// The Slack message for experiment `e` (its state, name, duration,
/// workspace, project; a custom alert's level, title and description).
nlohmann::json slack_experiment_payload(const state::cluster_state& s,
                                        const state::experiment_info& e,
                                        int64_t now_us,
                                        const nlohmann::json* custom,
                                        int64_t trial_id);

/// The Slack message for a trial's log line that matched `regex`.
nlohmann::json slack_log_payload(int64_t experiment_id, int64_t trial_id,
                                 const std::string& node,
                                 const std::string& line,
                                 const std::string& regex);

} // namespace det
