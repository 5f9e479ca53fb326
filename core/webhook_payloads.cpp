// The bodies webhooks send, in upstream's shapes (master/internal/webhooks
// of Determined 0.38): the DEFAULT event payload and the Slack messages.

#include "core/webhooks.hpp"

#include "state/model.hpp"
#include "state/records_queries.hpp"

#include <cstdio>

namespace det {

using nlohmann::json;

namespace {

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string experiment_name(const state::experiment_info& e) {
  auto n = e.config.find("name");
  return n != e.config.end() && n->is_string() ? n->get<std::string>()
                                               : "Experiment";
}

/// Seconds from submission to the end (or to now while it runs).
int64_t duration_s(const state::experiment_info& e, int64_t now_us) {
  auto end = state::is_terminal(e.status) ? e.state_changed_at_us : now_us;
  return end > e.submitted_at_us ? (end - e.submitted_at_us) / 1'000'000 : 0;
}

struct place {
  std::string workspace;
  std::string project;
};

place place_of(const state::cluster_state& s, const state::experiment_info& e) {
  place out;
  if (auto p = state::find_project(s, e.project_id)) {
    out.project = p->name;
    if (auto w = state::find_workspace(s, p->workspace_id))
      out.workspace = w->name;
  }
  return out;
}

json field(const std::string& text) {
  return {{"type", "mrkdwn"}, {"text", text}};
}

} // namespace

std::string delivery_event_id(int64_t delivery_id, const std::string& salt) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : salt)
    h = (h ^ c) * 1099511628211ULL;
  auto a = mix(h ^ static_cast<uint64_t>(delivery_id));
  auto b = mix(a ^ 0x5bd1e995ULL);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx",
                static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff),
                static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

json experiment_payload(const state::cluster_state& s,
                        const state::experiment_info& e, int64_t now_us) {
  auto where = place_of(s, e);
  return {{"id", e.id},
          {"state", state::to_string(e.status)},
          {"name", experiment_name(e)},
          {"duration", duration_s(e, now_us)},
          {"resource_pool", e.pool},
          {"slots_per_trial", e.slots_per_trial},
          {"workspace", where.workspace},
          {"project", where.project}};
}

json default_payload(const std::string& event_id, const std::string& event_type,
                     int64_t now_us, json condition, json event_data) {
  return {{"event_id", event_id},
          {"event_type", event_type},
          {"timestamp", now_us / 1'000'000},
          {"condition", std::move(condition)},
          {"event_data", std::move(event_data)}};
}

json slack_experiment_payload(const state::cluster_state& s,
                              const state::experiment_info& e, int64_t now_us,
                              const json* custom, int64_t trial_id) {
  auto name = experiment_name(e) + " (#" + std::to_string(e.id) + ")";
  std::string status;
  std::string title;
  std::string shown;
  std::string color = "#13B670";
  switch (e.status) {
  case state::experiment_status::completed:
    status = "Your experiment completed successfully 🎉";
    title = "✅ " + name;
    shown = "Completed";
    break;
  case state::experiment_status::error:
    status = "Your experiment has stopped with errors";
    title = "❌ " + name;
    shown = "Errored";
    color = "#DD5040";
    break;
  default:
    shown = state::to_string(e.status);
    status = "The status of your experiment is " + shown;
    title = name;
    color = "#009bde";
  }
  auto secs = duration_s(e, now_us);
  json fields =
      json::array({field("*Status*: " + shown),
                   field("*Duration*: " + std::to_string(secs / 3600) + "h "
                         + std::to_string((secs % 3600) / 60) + "min")});
  auto where = place_of(s, e);
  if (!where.workspace.empty())
    fields.push_back(field("*Workspace*: " + where.workspace));
  if (!where.project.empty())
    fields.push_back(field("*Project*: " + where.project));
  if (trial_id > 0)
    fields.push_back(field("*Trial ID*: " + std::to_string(trial_id)));
  json message = {{"type", "section"},
                  {"text", {{"type", "plain_text"}, {"text", status}}}};
  if (custom != nullptr)
    message["fields"] =
        json::array({field("*Level*: " + custom->value("level", std::string{})),
                     field("*Title*: " + custom->value("title", std::string{})),
                     field("*Description*: "
                           + custom->value("description", std::string{}))});
  json experiment = {{"type", "section"},
                     {"text", {{"type", "mrkdwn"}, {"text", title}}},
                     {"fields", std::move(fields)}};
  return {{"blocks", json::array({std::move(message)})},
          {"attachments",
           json::array({{{"color", color},
                         {"blocks", json::array({std::move(experiment)})}}})}};
}

json slack_log_payload(int64_t experiment_id, int64_t trial_id,
                       const std::string& node, const std::string& line,
                       const std::string& regex) {
  auto text = "Experiment ID `" + std::to_string(experiment_id)
              + "`, Trial ID `" + std::to_string(trial_id)
              + "`, running on node `" + node + "`, reported a log\n```" + line
              + "```\nThis log matched the regex\n```" + regex
              + "```\nView full logs at /det/experiments/"
              + std::to_string(experiment_id) + "/trials/"
              + std::to_string(trial_id) + "/logs";
  return {{"blocks",
           json::array({{{"type", "section"},
                         {"text", {{"type", "mrkdwn"}, {"text", text}}}}})}};
}

} // namespace det
