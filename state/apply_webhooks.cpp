// apply() for webhooks and their deliveries. A webhook_saved of a new id
// must take the next one; a delivery names a webhook that exists and takes
// the next delivery id; a TASK_LOG delivery fires its trigger once per
// trial. Deleting a webhook drops its deliveries not yet ended.

#include "state/apply_detail.hpp"

#include <algorithm>

namespace det::state::detail {

namespace {

std::string webhook_name(int64_t id) {
  return "webhook " + std::to_string(id);
}

std::string fired_key(int64_t trigger_id, int64_t trial_id) {
  return std::to_string(trigger_id) + "/" + std::to_string(trial_id);
}

const nlohmann::json* trigger_of(const webhook_info& w, int64_t trigger_id) {
  for (const auto& t : w.triggers)
    if (t.value("id", int64_t{0}) == trigger_id)
      return &t;
  return nullptr;
}

} // namespace

verdict apply_one(cluster_state& s, const webhook_saved& ev) {
  auto i = s.webhooks.find(ev.webhook_id);
  if (i == s.webhooks.end()) {
    if (ev.webhook_id <= s.last_webhook_id)
      return webhook_name(ev.webhook_id) + " was given out before";
    webhook_info w;
    w.id = ev.webhook_id;
    w.username = ev.username;
    w.created_at_us = ev.at_us;
    s.last_webhook_id = ev.webhook_id;
    i = s.webhooks.emplace(w.id, std::move(w)).first;
  }
  auto& w = i->second;
  for (const auto& t : ev.triggers) {
    auto id = t.value("id", int64_t{0});
    if (id > s.last_webhook_trigger_id)
      s.last_webhook_trigger_id = id;
  }
  w.name = ev.name;
  w.url = ev.url;
  w.webhook_type = ev.webhook_type;
  w.mode = ev.mode;
  w.workspace_id = ev.workspace_id;
  w.triggers = ev.triggers;
  return {};
}

verdict apply_one(cluster_state& s, const webhook_deleted& ev) {
  if (s.webhooks.erase(ev.webhook_id) == 0)
    return "unknown " + webhook_name(ev.webhook_id);
  for (auto i = s.webhook_deliveries.begin(); i != s.webhook_deliveries.end();)
    i = i->second.webhook_id == ev.webhook_id ? s.webhook_deliveries.erase(i)
                                              : std::next(i);
  return {};
}

verdict apply_one(cluster_state& s, const webhook_delivery_due& ev) {
  auto w = s.webhooks.find(ev.webhook_id);
  if (w == s.webhooks.end())
    return "unknown " + webhook_name(ev.webhook_id);
  if (ev.delivery_id != s.last_webhook_delivery_id + 1)
    return "delivery " + std::to_string(ev.delivery_id) + " is not the next";
  auto t = trigger_of(w->second, ev.trigger_id);
  if (t == nullptr)
    return webhook_name(ev.webhook_id) + " has no trigger "
           + std::to_string(ev.trigger_id);
  if (t->value("trigger_type", "") != ev.trigger_type)
    return "trigger " + std::to_string(ev.trigger_id) + " is not of type "
           + ev.trigger_type;
  if (ev.trigger_type == "TASK_LOG") {
    auto& fired = w->second.log_fired;
    auto key = fired_key(ev.trigger_id, ev.trial_id);
    if (std::find(fired.begin(), fired.end(), key) != fired.end())
      return "trigger " + std::to_string(ev.trigger_id)
             + " already fired for trial " + std::to_string(ev.trial_id);
    fired.push_back(key);
  }
  s.last_webhook_delivery_id = ev.delivery_id;
  s.webhook_deliveries[ev.delivery_id] = webhook_delivery_info{
      ev.delivery_id,   ev.webhook_id, ev.trigger_id, ev.trigger_type,
      ev.experiment_id, ev.trial_id,   ev.payload,    ev.at_us};
  return {};
}

verdict apply_one(cluster_state& s, const webhook_delivery_ended& ev) {
  auto d = s.webhook_deliveries.find(ev.delivery_id);
  if (d == s.webhook_deliveries.end() || d->second.webhook_id != ev.webhook_id)
    return "no delivery " + std::to_string(ev.delivery_id) + " of "
           + webhook_name(ev.webhook_id) + " is due";
  s.webhook_deliveries.erase(d);
  return {};
}

} // namespace det::state::detail
