// The webhook record commands and the deliveries their triggers decide
// (core/webhooks.hpp). Checks follow upstream's PostWebhook: at least one
// trigger, a valid URL, a TASK_LOG condition of exactly {"regex": text},
// CUSTOM triggers only on SPECIFIC webhooks; and, beyond it, every field
// typed and bounded, the regex compiled by RE2 (linear time, no
// backtracking) so a hostile pattern cannot stall log scanning.

#include "core/webhooks.hpp"

#include "core/record_args.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"
#include "state/records_queries.hpp"

#include <re2/re2.h>

#include <algorithm>

namespace det {

namespace {

using namespace det::record_args;
using nlohmann::json;
using state::cluster_state;

/// obj[key] when it is a string, else "" (state and configs never throw).
std::string str_of(const json& obj, const char* key) {
  auto i = obj.find(key);
  return i != obj.end() && i->is_string() ? i->get<std::string>() : "";
}

int64_t int_of(const json& obj, const char* key) {
  auto i = obj.find(key);
  return i != obj.end() && i->is_number_integer() ? i->get<int64_t>() : 0;
}

const json& condition_of(const json& trigger) {
  static const json none = json::object();
  auto i = trigger.find("condition");
  return i != trigger.end() && i->is_object() ? *i : none;
}

std::string strip_prefix(const std::string& s, const std::string& p) {
  return s.rfind(p, 0) == 0 ? s.substr(p.size()) : s;
}

/// An absolute http(s) URL with a host, no credentials, no spaces.
std::string checked_url(const json& a) {
  auto url = text(a, "url", "", {2048, false, false});
  std::string rest;
  if (url.rfind("http://", 0) == 0)
    rest = url.substr(7);
  else if (url.rfind("https://", 0) == 0)
    rest = url.substr(8);
  else
    refuse(errc::invalid_argument,
           "url: expected an absolute http:// or https:// URL");
  auto host = rest.substr(0, rest.find_first_of("/?#"));
  if (host.empty() || host.front() == ':')
    refuse(errc::invalid_argument, "url: has no host");
  for (unsigned char c : url)
    if (c <= 0x20 || c == 0x7f || c == '\\')
      refuse(errc::invalid_argument, "url: contains a space or control byte");
  if (host.find('@') != std::string::npos)
    refuse(errc::invalid_argument, "url: must not carry credentials");
  return url;
}

std::string enum_arg(const json& a, const char* key, const std::string& prefix,
                     const std::vector<std::string>& allowed) {
  auto v = strip_prefix(text(a, key, "", name_rules), prefix);
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    std::string list;
    for (const auto& x : allowed)
      list += (list.empty() ? "" : ", ") + prefix + x;
    refuse(errc::invalid_argument, std::string{key} + ": expected " + list);
  }
  return v;
}

/// A TASK_LOG regex: at most max_webhook_regex bytes, RE2 syntax.
std::string checked_regex(const json& condition, const std::string& where) {
  auto r = condition.find("regex");
  if (condition.size() != 1 || r == condition.end())
    refuse(errc::invalid_argument,
           where + ": a TASK_LOG condition is exactly {\"regex\": ...}");
  if (!r->is_string() || r->get<std::string>().empty())
    refuse(errc::invalid_argument, where + ".regex: expected a pattern");
  auto pattern = r->get<std::string>();
  if (pattern.size() > max_webhook_regex)
    refuse(errc::invalid_argument, where + ".regex: longer than "
                                       + std::to_string(max_webhook_regex)
                                       + " bytes");
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(1 << 20);
  RE2 re(pattern, o);
  if (!re.ok())
    refuse(errc::invalid_argument, where + ".regex: " + re.error());
  return pattern;
}

/// The triggers, checked, as the state keeps them (without their ids).
json checked_triggers(const json& a, const std::string& mode) {
  auto i = a.find("triggers");
  if (i == a.end() || !i->is_array() || i->empty())
    refuse(errc::invalid_argument, "triggers: at least one trigger required");
  if (i->size() > 64)
    refuse(errc::invalid_argument, "triggers: at most 64");
  json out = json::array();
  for (size_t n = 0; n < i->size(); ++n) {
    const auto& t = (*i)[n];
    auto where = "triggers[" + std::to_string(n) + "]";
    if (!t.is_object())
      refuse(errc::invalid_argument, where + ": expected an object");
    auto type = enum_arg(t, "triggerType", "TRIGGER_TYPE_",
                         {"EXPERIMENT_STATE_CHANGE", "TASK_LOG", "CUSTOM"});
    auto c = t.find("condition");
    json condition = c == t.end() || c->is_null() ? json::object() : *c;
    if (!condition.is_object())
      refuse(errc::invalid_argument, where + ".condition: expected an object");
    if (type == "EXPERIMENT_STATE_CHANGE") {
      auto st = condition.find("state");
      const auto& states = experiment_states();
      if (condition.size() != 1 || st == condition.end() || !st->is_string()
          || std::find(states.begin(), states.end(),
                       strip_prefix(st->get<std::string>(), "STATE_"))
                 == states.end())
        refuse(errc::invalid_argument,
               where
                   + ".condition.state: expected an experiment state "
                     "(COMPLETED, ERROR, CANCELED, PAUSED, ACTIVE, ...)");
      condition = {{"state", strip_prefix(st->get<std::string>(), "STATE_")}};
    } else if (type == "TASK_LOG") {
      condition = {{"regex", checked_regex(condition, where + ".condition")}};
    } else {
      if (mode != "SPECIFIC")
        refuse(errc::invalid_argument,
               "mode: custom trigger only works on webhook with mode "
               "'SPECIFIC'");
      if (auto why = json_problem(condition, "condition");
          !why.empty() || condition.dump().size() > 4096)
        refuse(errc::invalid_argument, where + ".condition: too large");
    }
    out.push_back(
        {{"trigger_type", type}, {"condition", std::move(condition)}});
  }
  return out;
}

const state::webhook_info& webhook_or_refuse(const cluster_state& s,
                                             int64_t id) {
  auto i = s.webhooks.find(id);
  if (i == s.webhooks.end())
    refuse(errc::not_found, "webhook " + std::to_string(id) + " not found");
  return i->second;
}

webhook_saved to_event(const state::webhook_info& w,
                       const std::string& username, int64_t now) {
  return webhook_saved{w.id,           w.name,   w.url,
                       w.webhook_type, w.mode,   w.workspace_id,
                       w.triggers,     username, now};
}

/// Who may create, change or delete a webhook of workspace `workspace_id`
/// (0: a global one): an admin, or that workspace's owner (upstream's
/// basic authorization). Refused as a failed precondition: upstream
/// answers these with a plain error, which its SDK raises as an
/// APIException, not as a ForbiddenException.
template <class C> void check_may_edit_global(const C& c) {
  if (!c.as_admin)
    refuse(errc::failed_precondition,
           "non admin users can't edit global webhooks");
}

template <class C>
void check_may_edit(const cluster_state& s, const C& c, int64_t workspace_id) {
  if (c.as_admin)
    return;
  if (workspace_id == 0)
    check_may_edit_global(c);
  auto w = state::find_workspace(s, workspace_id);
  if (!w || w->username != c.username)
    refuse(errc::failed_precondition,
           "only admins and the workspace's owner may edit the webhooks of "
           "workspace "
               + std::to_string(workspace_id));
}

webhook_delivery_due due(const state::webhook_info& w, const json& trigger,
                         int64_t delivery_id, int64_t experiment_id,
                         int64_t trial_id, json payload, int64_t now) {
  return webhook_delivery_due{
      delivery_id,           w.id,
      int_of(trigger, "id"), str_of(trigger, "trigger_type"),
      experiment_id,         trial_id,
      std::move(payload),    now};
}

/// The webhooks an experiment names in integrations.webhooks.
bool names_webhook(const state::experiment_info& e,
                   const state::webhook_info& w) {
  auto i = e.config.find("integrations");
  if (i == e.config.end() || !i->is_object())
    return false;
  auto c = i->find("webhooks");
  if (c == i->end() || !c->is_object())
    return false;
  auto ids = c->find("webhook_id");
  if (ids != c->end() && ids->is_array())
    for (const auto& x : *ids)
      if (x.is_number_integer() && x.get<int64_t>() == w.id)
        return true;
  auto names = c->find("webhook_name");
  if (names != c->end() && names->is_array())
    for (const auto& x : *names)
      if (x.is_string() && x.get<std::string>() == w.name)
        return true;
  return false;
}

} // namespace

caf::expected<webhook_create> parse_webhook_create(const json& body,
                                                   bool as_admin) {
  return parsed<webhook_create>(body, [as_admin](const json& a) {
    webhook_create c;
    c.as_admin = as_admin;
    c.url = checked_url(a);
    c.name = text(a, "name", "", {255, false, true});
    c.webhook_type =
        enum_arg(a, "webhookType", "WEBHOOK_TYPE_", {"DEFAULT", "SLACK"});
    c.mode = has(a, "mode") ? enum_arg(a, "mode", "WEBHOOK_MODE_",
                                       {"WORKSPACE", "SPECIFIC", "UNSPECIFIED"})
                            : "WORKSPACE";
    if (c.mode == "UNSPECIFIED")
      c.mode = "WORKSPACE";
    auto ws = a.find("workspaceId");
    if (ws != a.end() && !ws->is_null()
        && !(ws->is_number_integer() && ws->get<int64_t>() == 0))
      c.workspace_id = id_arg(a, "workspaceId");
    // As upstream, a caller who may not comes first: the rest of the body
    // is not read for them.
    if (c.workspace_id == 0)
      check_may_edit_global(c);
    c.triggers = checked_triggers(a, c.mode);
    return c;
  });
}

caf::expected<webhook_patch> parse_webhook_patch(const json& body) {
  return parsed<webhook_patch>(body, [](const json& a) {
    webhook_patch c;
    c.id = id_arg(a, "id");
    c.url = checked_url(a);
    return c;
  });
}

caf::expected<webhook_delete> parse_webhook_delete(const json& body) {
  return parsed<webhook_delete>(body, [](const json& a) {
    webhook_delete c;
    c.id = id_arg(a, "id");
    return c;
  });
}

caf::expected<webhook_alert> parse_webhook_alert(const json& body) {
  return parsed<webhook_alert>(body, [](const json& a) {
    webhook_alert c;
    c.experiment_id = id_arg(a, "experimentId");
    if (has(a, "trialId") && a["trialId"] != 0)
      c.trial_id = id_arg(a, "trialId");
    auto data = object(a, "data", json::object());
    c.title = text(data, "title", "", {1024, false, true});
    c.description = text(data, "description", "", {16 * 1024, true, true});
    c.level = strip_prefix(text(data, "level", "LOG_LEVEL_INFO", name_rules),
                           "LOG_LEVEL_");
    return c;
  });
}

record_outcome decide_record(const cluster_state& s, const webhook_create& c,
                             int64_t now_us) {
  return decided([&](record_outcome& o) {
    state::webhook_info w;
    w.url = c.url;
    w.name = c.name;
    w.webhook_type = c.webhook_type;
    w.mode = c.mode;
    w.workspace_id = c.workspace_id;
    if (w.workspace_id > 0 && !state::find_workspace(s, w.workspace_id))
      refuse(errc::not_found, "workspaceId: workspace "
                                  + std::to_string(w.workspace_id)
                                  + " not found");
    check_may_edit(s, c, w.workspace_id);
    w.triggers = c.triggers;
    auto next = s.last_webhook_trigger_id;
    for (auto& t : w.triggers)
      t["id"] = ++next;
    w.id = s.last_webhook_id + 1;
    o.events.push_back(to_event(w, c.username, now_us));
    o.reply = {{"id", w.id}};
  });
}

record_outcome decide_record(const cluster_state& s, const webhook_patch& c,
                             int64_t now_us) {
  return decided([&](record_outcome& o) {
    auto w = webhook_or_refuse(s, c.id);
    check_may_edit(s, c, w.workspace_id);
    o.reply = {{"id", w.id}};
    if (c.url == w.url)
      return;
    w.url = c.url;
    o.events.push_back(to_event(w, c.username, now_us));
  });
}

record_outcome decide_record(const cluster_state& s, const webhook_delete& c,
                             int64_t now_us) {
  return decided([&](record_outcome& o) {
    const auto& w = webhook_or_refuse(s, c.id);
    check_may_edit(s, c, w.workspace_id);
    o.events.push_back(webhook_deleted{w.id, c.username, now_us});
  });
}

record_outcome decide_record(const cluster_state& s, const webhook_alert& c,
                             int64_t now) {
  return decided([&](record_outcome& o) {
    auto exp_id = c.experiment_id;
    const auto* e = state::find_experiment(s, exp_id);
    // Only its owner (or a trial of it, which acts as the owner) and admins
    // may raise an experiment's alert; others do not learn it exists.
    if (e != nullptr && e->owner != c.username && !c.as_admin)
      e = nullptr;
    if (e == nullptr)
      refuse(errc::not_found, "experimentId: experiment "
                                  + std::to_string(exp_id) + " not found");
    auto trial_id = c.trial_id;
    const auto* t = trial_id > 0 ? state::find_trial(s, trial_id) : nullptr;
    if (trial_id > 0 && (t == nullptr || t->experiment_id != exp_id))
      refuse(errc::not_found, "trialId: trial " + std::to_string(trial_id)
                                  + " not found in experiment "
                                  + std::to_string(exp_id));
    json custom_data = {
        {"title", c.title}, {"description", c.description}, {"level", c.level}};
    auto id = s.last_webhook_delivery_id;
    for (const auto& [wid, w] : s.webhooks) {
      if (!webhook_applies(s, w, *e) || !names_webhook(*e, w))
        continue;
      for (const auto& trig : w.triggers) {
        if (str_of(trig, "trigger_type") != "CUSTOM")
          continue;
        ++id;
        json body;
        if (w.webhook_type == "SLACK") {
          body = slack_experiment_payload(s, *e, now, &custom_data, trial_id);
        } else {
          auto exp = experiment_payload(s, *e, now);
          if (trial_id > 0)
            exp["trial_id"] = trial_id;
          body = default_payload(
              delivery_event_id(id, s.cluster_uuid), "CUSTOM", now,
              {{"state", state::to_string(e->status)}},
              {{"experiment", std::move(exp)}, {"custom_data", custom_data}});
        }
        o.events.push_back(
            due(w, trig, id, exp_id, trial_id, std::move(body), now));
      }
    }
  });
}

std::optional<webhook_delivery_due>
log_match_delivery(const cluster_state& s, const webhook_log_match& c,
                   int64_t now) {
  auto wi = s.webhooks.find(c.webhook_id);
  const auto* t = state::find_trial(s, c.trial_id);
  if (wi == s.webhooks.end() || t == nullptr)
    return std::nullopt; // deleted meanwhile: nothing to send
  const auto& w = wi->second;
  auto trig =
      std::find_if(w.triggers.begin(), w.triggers.end(), [&](const json& x) {
        return int_of(x, "id") == c.trigger_id;
      });
  if (trig == w.triggers.end() || str_of(*trig, "trigger_type") != "TASK_LOG")
    return std::nullopt;
  auto key = std::to_string(c.trigger_id) + "/" + std::to_string(c.trial_id);
  if (std::find(w.log_fired.begin(), w.log_fired.end(), key)
      != w.log_fired.end())
    return std::nullopt;
  const auto* e = state::find_experiment(s, t->experiment_id);
  if (e == nullptr || !webhook_applies(s, w, *e))
    return std::nullopt;
  // A trial prints what it likes: its line is fitted, never refused.
  auto line = util::fit_text(c.line, {16384, true, true});
  auto node = util::fit_text(c.node, {255, false, true});
  auto regex = str_of(condition_of(*trig), "regex");
  auto id = s.last_webhook_delivery_id + 1;
  json body = w.webhook_type == "SLACK"
                  ? slack_log_payload(e->id, c.trial_id, node, line, regex)
                  : default_payload(
                      delivery_event_id(id, s.cluster_uuid), "TASK_LOG", now,
                      {{"regex", regex}},
                      {{"task_log",
                        {{"task_id", state::task_id_of(e->id, c.trial_id)},
                         {"node_name", node},
                         {"triggering_log", line}}}});
  return due(w, *trig, id, e->id, c.trial_id, std::move(body), now);
}

std::optional<webhook_delivery_ended>
delivery_end(const cluster_state& s, const webhook_delivery_report& c,
             int64_t now) {
  auto d = s.webhook_deliveries.find(c.delivery_id);
  if (d == s.webhook_deliveries.end())
    return std::nullopt; // its webhook was deleted meanwhile
  return webhook_delivery_ended{c.delivery_id,
                                d->second.webhook_id,
                                c.delivered,
                                c.attempts,
                                c.status,
                                util::fit_text(c.reason, {4096, true, true}),
                                now};
}

bool webhook_applies(const cluster_state& s, const state::webhook_info& w,
                     const state::experiment_info& e) {
  auto i = e.config.find("integrations");
  if (i != e.config.end() && i->is_object()) {
    auto c = i->find("webhooks");
    if (c != i->end() && c->is_object()) {
      auto x = c->find("exclude");
      if (x != c->end() && x->is_boolean() && x->get<bool>())
        return false;
    }
  }
  if (w.workspace_id > 0) {
    auto p = state::find_project(s, e.project_id);
    if (!p || p->workspace_id != w.workspace_id)
      return false;
  }
  return w.mode != "SPECIFIC" || names_webhook(e, w);
}

std::vector<webhook_delivery_due>
state_change_deliveries(const cluster_state& s, int64_t experiment_id,
                        const std::string& st, int64_t now_us) {
  std::vector<webhook_delivery_due> out;
  const auto* e = state::find_experiment(s, experiment_id);
  if (e == nullptr || s.webhooks.empty())
    return out;
  auto id = s.last_webhook_delivery_id;
  for (const auto& [wid, w] : s.webhooks) {
    for (const auto& t : w.triggers) {
      if (str_of(t, "trigger_type") != "EXPERIMENT_STATE_CHANGE"
          || str_of(condition_of(t), "state") != st)
        continue;
      if (!webhook_applies(s, w, *e))
        break;
      ++id;
      json body = w.webhook_type == "SLACK"
                      ? slack_experiment_payload(s, *e, now_us, nullptr, 0)
                      : default_payload(
                          delivery_event_id(id, s.cluster_uuid),
                          "EXPERIMENT_STATE_CHANGE", now_us, {{"state", st}},
                          {{"experiment", experiment_payload(s, *e, now_us)}});
      out.push_back(due(w, t, id, experiment_id, 0, std::move(body), now_us));
    }
  }
  return out;
}

json webhook_json(const state::webhook_info& w) {
  json triggers = json::array();
  for (const auto& t : w.triggers)
    triggers.push_back(
        {{"id", int_of(t, "id")},
         {"triggerType", "TRIGGER_TYPE_" + str_of(t, "trigger_type")},
         {"condition", condition_of(t)},
         {"webhookId", w.id}});
  return {{"id", w.id},
          {"url", w.url},
          {"triggers", std::move(triggers)},
          {"webhookType", "WEBHOOK_TYPE_" + w.webhook_type},
          {"name", w.name},
          {"workspaceId", w.workspace_id},
          {"mode", "WEBHOOK_MODE_" + w.mode}};
}

} // namespace det
