#pragma once

// The payload forms of messages/events_webhooks.hpp, as
// messages/event_payloads.hpp does for the rest; included from there,
// after its field checks. Private to messages/events.cpp.

#include "messages/event_payloads.hpp"

namespace det::payload {

template <class F> void fields(F& f, webhook_saved& x) {
  f.req("webhook_id", x.webhook_id);
  f.opt("name", x.name);
  f.req("url", x.url);
  f.req("webhook_type", x.webhook_type);
  f.req("mode", x.mode);
  f.opt("workspace_id", x.workspace_id);
  f.req("triggers", x.triggers);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, webhook_deleted& x) {
  f.req("webhook_id", x.webhook_id);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, webhook_delivery_due& x) {
  f.req("delivery_id", x.delivery_id);
  f.req("webhook_id", x.webhook_id);
  f.req("trigger_id", x.trigger_id);
  f.req("trigger_type", x.trigger_type);
  f.opt("experiment_id", x.experiment_id);
  f.opt("trial_id", x.trial_id);
  f.req("payload", x.payload);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, webhook_delivery_ended& x) {
  f.req("delivery_id", x.delivery_id);
  f.req("webhook_id", x.webhook_id);
  f.req("delivered", x.delivered);
  f.opt("attempts", x.attempts);
  f.opt("status", x.status);
  f.opt("reason", x.reason);
  f.opt("at_us", x.at_us);
}

inline const std::vector<std::string>& webhook_trigger_types() {
  static const std::vector<std::string> xs{"EXPERIMENT_STATE_CHANGE",
                                           "TASK_LOG", "CUSTOM"};
  return xs;
}

inline void validate(const webhook_saved& x) {
  require_positive("webhook_id", x.webhook_id);
  require_non_empty("url", x.url);
  require_one_of("webhook_type", x.webhook_type, {"DEFAULT", "SLACK"});
  require_one_of("mode", x.mode, {"WORKSPACE", "SPECIFIC"});
  if (x.workspace_id < 0)
    throw field_error("field 'workspace_id': must not be negative");
  if (!x.triggers.is_array() || x.triggers.empty())
    throw field_error("field 'triggers': expected a non-empty list");
  for (const auto& t : x.triggers) {
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

inline void validate(const webhook_deleted& x) {
  require_positive("webhook_id", x.webhook_id);
}

inline void validate(const webhook_delivery_due& x) {
  require_positive("delivery_id", x.delivery_id);
  require_positive("webhook_id", x.webhook_id);
  require_positive("trigger_id", x.trigger_id);
  require_one_of("trigger_type", x.trigger_type, webhook_trigger_types());
  require_object(x.payload, "field 'payload'");
}

inline void validate(const webhook_delivery_ended& x) {
  require_positive("delivery_id", x.delivery_id);
  require_positive("webhook_id", x.webhook_id);
}

} // namespace det::payload
