// Webhooks as master_core decides them (core/webhooks.hpp): every field
// checked with a refusal naming it, deliveries decided with the state
// change that causes them (the payload upstream sends), TASK_LOG matches
// once per trial, and a restarted master (the log replayed) keeps the
// webhooks and the deliveries still due.

#include "tests/core/core_cluster.hpp"

#include "core/records_parse.hpp"
#include "core/webhooks.hpp"
#include "messages/errc.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;
using nlohmann::json;

json state_trigger(const std::string& st) {
  return {{"triggerType", "TRIGGER_TYPE_EXPERIMENT_STATE_CHANGE"},
          {"condition", {{"state", st}}}};
}

json log_trigger(const std::string& regex) {
  return {{"triggerType", "TRIGGER_TYPE_TASK_LOG"},
          {"condition", {{"regex", regex}}}};
}

json hook(json triggers, const std::string& type = "WEBHOOK_TYPE_DEFAULT") {
  return {{"url", "http://127.0.0.1:9/hook"},
          {"webhookType", type},
          {"mode", "WEBHOOK_MODE_WORKSPACE"},
          {"name", "h"},
          {"triggers", std::move(triggers)}};
}

/// parse_webhook_create for an admin's session, and for another's.
caf::expected<webhook_create> create_as_admin(const json& b) {
  return parse_webhook_create(b, true);
}
caf::expected<webhook_create> create_as_user(const json& b) {
  return parse_webhook_create(b, false);
}

struct webhooks : ::testing::Test {
  cluster c;

  /// As the API sends it for an admin (as_admin from the session).
  template <class C>
  decision rec(caf::expected<C> (*parse)(const json&), const json& args) {
    return c.parsed_run(parse(args), "admin", true);
  }

  /// As user `who`, not an admin.
  template <class C>
  decision as_user(const std::string& who,
                   caf::expected<C> (*parse)(const json&), const json& args) {
    return c.parsed_run(parse(args), who, false);
  }

  template <class C>
  std::string refusal(caf::expected<C> (*parse)(const json&),
                      const json& args) {
    auto d = rec(parse, args);
    EXPECT_TRUE(d.events.empty());
    return d.refusal ? render(d.refusal) : std::string{};
  }

  int64_t experiment_1() {
    auto d = c.run(
        c.core->create_experiment(experiment(), "alice", true, false, c.now));
    EXPECT_FALSE(d.refusal) << render(d.refusal);
    return 1;
  }

  std::vector<webhook_delivery_due> dues(const decision& d) {
    std::vector<webhook_delivery_due> out;
    for (const auto& ev : d.events)
      if (auto x = std::get_if<webhook_delivery_due>(&ev))
        out.push_back(*x);
    return out;
  }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(webhooks, only_admins_edit_global_ones_and_owners_their_workspaces) {
  auto global = hook(json::array({state_trigger("COMPLETED")}));
  auto d = as_user("bob", create_as_user, global);
  EXPECT_EQ(code_of(d.refusal), errc::failed_precondition);
  EXPECT_TRUE(has(render(d.refusal), "can't edit global webhooks"));
  EXPECT_TRUE(d.events.empty());
  // bob's own workspace: his to hook; not carol's.
  auto w = c.run(decide_parsed(
      *c.core, parse_workspace_create({{"name", "bobs"}}), "bob", c.now));
  ASSERT_FALSE(w.refusal) << render(w.refusal);
  auto ws = w.reply.value("id", int64_t{0});
  auto mine = global;
  mine["workspaceId"] = ws;
  auto made = as_user("bob", create_as_user, mine);
  ASSERT_FALSE(made.refusal) << render(made.refusal);
  auto id = made.reply.value("id", int64_t{0});
  EXPECT_EQ(code_of(as_user("carol", create_as_user, mine).refusal),
            errc::failed_precondition);
  EXPECT_EQ(
      code_of(as_user("carol", parse_webhook_delete, {{"id", id}}).refusal),
      errc::failed_precondition);
  EXPECT_EQ(code_of(as_user("carol", parse_webhook_patch,
                            {{"id", id}, {"url", "http://127.0.0.1:9/x"}})
                        .refusal),
            errc::failed_precondition);
  EXPECT_FALSE(as_user("bob", parse_webhook_delete, {{"id", id}}).refusal);
  // An admin may do both.
  EXPECT_FALSE(rec(create_as_admin, global).refusal);
}

TEST_F(webhooks, each_bad_field_is_refused_by_name) {
  auto base = hook(json::array({state_trigger("COMPLETED")}));
  auto with = [&](const char* key, json v) {
    auto h = base;
    h[key] = std::move(v);
    return refusal(create_as_admin, h);
  };
  EXPECT_TRUE(has(with("url", "ftp://x/"), "url"));
  EXPECT_TRUE(has(with("url", "http:///path"), "url: has no host"));
  EXPECT_TRUE(has(with("url", "http://a b/"), "url"));
  EXPECT_TRUE(has(with("url", "http://user:pw@host/"), "credentials"));
  EXPECT_TRUE(has(with("url", 5), "url"));
  EXPECT_TRUE(has(with("webhookType", "WEBHOOK_TYPE_TEAMS"), "webhookType"));
  EXPECT_TRUE(has(with("mode", "WEBHOOK_MODE_ALL"), "mode"));
  EXPECT_TRUE(has(with("triggers", json::array()), "triggers"));
  EXPECT_TRUE(has(with("triggers", json::array({state_trigger("DONE")})),
                  "triggers[0].condition.state"));
  EXPECT_TRUE(has(with("triggers", json::array({log_trigger("(unclosed")})),
                  "triggers[0].condition.regex"));
  EXPECT_TRUE(
      has(with("triggers", json::array({log_trigger(std::string(2000, 'a'))})),
          "longer than 1024"));
  EXPECT_TRUE(
      has(with("triggers", json::array({{{"triggerType", "TRIGGER_TYPE_CUSTOM"},
                                         {"condition", json::object()}}})),
          "SPECIFIC"));
  EXPECT_TRUE(has(with("workspaceId", 77), "workspace 77 not found"));
  EXPECT_TRUE(c.core->state().webhooks.empty());
}

TEST_F(webhooks, a_state_change_decides_the_upstream_payload_with_it) {
  auto d = rec(
      create_as_admin,
      hook(json::array({state_trigger("PAUSED"), state_trigger("COMPLETED")})));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply["id"], 1);
  auto id = experiment_1();
  auto paused = c.run(c.core->pause_experiment(id, c.now + 5 * sec));
  auto due = dues(paused);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].delivery_id, 1);
  EXPECT_EQ(due[0].trigger_type, "EXPERIMENT_STATE_CHANGE");
  const auto& p = due[0].payload;
  EXPECT_EQ(p["event_type"], "EXPERIMENT_STATE_CHANGE");
  EXPECT_EQ(p["condition"], json({{"state", "PAUSED"}}));
  EXPECT_EQ(p["timestamp"], (c.now + 5 * sec) / sec);
  EXPECT_EQ(p["event_id"].get<std::string>().size(), 36u);
  const auto& e = p["event_data"]["experiment"];
  EXPECT_EQ(e["id"], id);
  EXPECT_EQ(e["state"], "PAUSED");
  EXPECT_EQ(e["name"], "test");
  EXPECT_EQ(e["resource_pool"], "default");
  EXPECT_EQ(e["slots_per_trial"], 1);
  EXPECT_EQ(e["workspace"], "Uncategorized");
  EXPECT_EQ(e["project"], "Uncategorized");
  EXPECT_EQ(c.core->state().webhook_deliveries.size(), 1u);
}

TEST_F(webhooks, a_slack_webhook_gets_a_slack_message) {
  rec(create_as_admin,
      hook(json::array({state_trigger("PAUSED")}), "WEBHOOK_TYPE_SLACK"));
  auto id = experiment_1();
  auto due = dues(c.run(c.core->pause_experiment(id, c.now)));
  ASSERT_EQ(due.size(), 1u);
  const auto& p = due[0].payload;
  EXPECT_EQ(p["blocks"][0]["text"]["text"],
            "The status of your experiment is PAUSED");
  EXPECT_EQ(p["attachments"][0]["color"], "#009bde");
  EXPECT_EQ(p["attachments"][0]["blocks"][0]["text"]["text"], "test (#1)");
  EXPECT_EQ(p["attachments"][0]["blocks"][0]["fields"][0]["text"],
            "*Status*: PAUSED");
}

TEST_F(webhooks, an_excluded_or_unnamed_experiment_fires_nothing) {
  auto specific = hook(json::array({state_trigger("PAUSED")}));
  specific["mode"] = "WEBHOOK_MODE_SPECIFIC";
  rec(create_as_admin, specific);
  auto cfg = experiment();
  auto d = c.run(c.core->create_experiment(cfg, "alice", true, false, c.now));
  ASSERT_FALSE(d.refusal);
  EXPECT_TRUE(dues(c.run(c.core->pause_experiment(1, c.now))).empty());
  cfg["integrations"] = {{"webhooks", {{"webhook_name", {"h"}}}}};
  c.run(c.core->create_experiment(cfg, "alice", true, false, c.now));
  EXPECT_EQ(dues(c.run(c.core->pause_experiment(2, c.now))).size(), 1u);
  cfg["integrations"]["webhooks"]["exclude"] = true;
  c.run(c.core->create_experiment(cfg, "alice", true, false, c.now));
  EXPECT_TRUE(dues(c.run(c.core->pause_experiment(3, c.now))).empty());
}

TEST_F(webhooks, a_log_pattern_fires_once_per_trial) {
  rec(create_as_admin, hook(json::array({log_trigger("exit.*code 7")})));
  auto id = experiment_1();
  ASSERT_FALSE(c.experiment(id).trial_ids.empty());
  auto trial = c.experiment(id).trial_ids.front();
  webhook_log_match match{1, 1, trial, "process exit with code 7", "agent-1"};
  auto d = c.run(c.core->decide(match, c.now));
  auto due = dues(d);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].payload["event_type"], "TASK_LOG");
  EXPECT_EQ(due[0].payload["condition"]["regex"], "exit.*code 7");
  EXPECT_EQ(due[0].payload["event_data"]["task_log"]["triggering_log"],
            "process exit with code 7");
  EXPECT_EQ(due[0].payload["event_data"]["task_log"]["node_name"], "agent-1");
  EXPECT_TRUE(c.run(c.core->decide(match, c.now)).events.empty());
}

TEST_F(webhooks, a_restart_keeps_webhooks_and_deliveries_still_due) {
  rec(create_as_admin, hook(json::array({state_trigger("PAUSED")})));
  auto id = experiment_1();
  c.run(c.core->pause_experiment(id, c.now));
  c.run(c.core->activate_experiment(id, c.now));
  c.run(c.core->pause_experiment(id, c.now));
  ASSERT_EQ(c.core->state().webhook_deliveries.size(), 2u);
  auto ended = c.run(
      c.core->decide(webhook_delivery_report{1, true, 2, 200, ""}, c.now));
  ASSERT_EQ(ended.events.size(), 1u);
  c.restart({});
  const auto& s = c.core->state();
  ASSERT_EQ(s.webhooks.size(), 1u);
  EXPECT_EQ(s.webhooks.at(1).url, "http://127.0.0.1:9/hook");
  ASSERT_EQ(s.webhook_deliveries.size(), 1u);
  EXPECT_EQ(s.webhook_deliveries.begin()->first, 2);
  EXPECT_TRUE(s == c.replayed());
}

TEST_F(webhooks, delete_drops_due_deliveries_and_stops_new_ones) {
  rec(create_as_admin, hook(json::array({state_trigger("PAUSED")})));
  auto id = experiment_1();
  c.run(c.core->pause_experiment(id, c.now));
  EXPECT_EQ(c.core->state().webhook_deliveries.size(), 1u);
  EXPECT_FALSE(rec(parse_webhook_delete, {{"id", 1}}).refusal);
  EXPECT_TRUE(c.core->state().webhook_deliveries.empty());
  c.run(c.core->activate_experiment(id, c.now));
  EXPECT_TRUE(dues(c.run(c.core->pause_experiment(id, c.now))).empty());
  EXPECT_TRUE(has(refusal(parse_webhook_delete, {{"id", 1}}), "not found"));
  EXPECT_TRUE(
      c.run(c.core->decide(webhook_delivery_report{1, true, 1, 0, ""}, c.now))
          .events.empty());
}

TEST_F(webhooks, patch_changes_only_the_url_and_checks_it) {
  rec(create_as_admin, hook(json::array({state_trigger("PAUSED")})));
  EXPECT_TRUE(
      has(refusal(parse_webhook_patch, {{"id", 1}, {"url", "nope"}}), "url"));
  EXPECT_FALSE(
      rec(parse_webhook_patch, {{"id", 1}, {"url", "https://h.example/x"}})
          .refusal);
  EXPECT_EQ(c.core->state().webhooks.at(1).url, "https://h.example/x");
}

TEST_F(webhooks, a_custom_alert_goes_to_the_webhooks_the_experiment_names) {
  auto specific = hook(json::array({{{"triggerType", "TRIGGER_TYPE_CUSTOM"},
                                     {"condition", json::object()}}}));
  specific["mode"] = "WEBHOOK_MODE_SPECIFIC";
  rec(create_as_admin, specific);
  auto cfg = experiment();
  cfg["integrations"] = {{"webhooks", {{"webhook_id", {1}}}}};
  c.run(c.core->create_experiment(cfg, "alice", true, false, c.now));
  json alert{
      {"experimentId", 1},
      {"data",
       {{"title", "t"}, {"description", "d"}, {"level", "LOG_LEVEL_WARNING"}}}};
  // Not the owner, not an admin: as if the experiment did not exist.
  auto d = as_user("bob", parse_webhook_alert, alert);
  EXPECT_EQ(code_of(d.refusal), errc::not_found);
  d = as_user("alice", parse_webhook_alert, alert);
  auto due = dues(d);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].payload["event_type"], "CUSTOM");
  EXPECT_EQ(due[0].payload["event_data"]["custom_data"],
            json({{"title", "t"}, {"description", "d"}, {"level", "WARNING"}}));
}

} // namespace
} // namespace det
