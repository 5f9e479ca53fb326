// The record commands parsed from hostile request bodies
// (core/records_parse.hpp): every parse function refuses a wrong type, NUL
// and hostile_control characters, an over-long name and invalid UTF-8 as
// invalid_argument naming the field in the API's spelling, and a body that
// is not an object; a good body becomes the typed command.

#include "core/records_parse.hpp"
#include "core/trials_parse.hpp"
#include "core/webhooks.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace det {
namespace {

using nlohmann::json;

const std::string hostile_nul("a\0b", 3);
const std::string hostile_control = "a\x1b b";
const std::string hostile_too_long(256, 'x');
const std::string hostile_not_utf8 = "ab\xff\xfe";

/// Expects `parse(body)` refused as invalid_argument with `field` in the
/// text.
template <class Parse>
void expect_field_refused(Parse parse, const json& body,
                          const std::string& field) {
  auto c = parse(body);
  ASSERT_FALSE(c) << body.dump(-1, ' ', true, json::error_handler_t::replace);
  EXPECT_EQ(code_of(c.error()), errc::invalid_argument) << render(c.error());
  EXPECT_NE(render(c.error()).find(field), std::string::npos)
      << render(c.error()) << " should name " << field;
}

/// Each of the hostile strings as `key` (added to `base`) is refused
/// naming `key`.
template <class Parse>
void expect_hostile_text_refused(Parse parse, json base, const char* key) {
  for (const auto& bad :
       {hostile_nul, hostile_control, hostile_too_long, hostile_not_utf8}) {
    auto body = base;
    body[key] = bad;
    expect_field_refused(parse, body, key);
  }
  base[key] = 7;
  expect_field_refused(parse, base, key);
}

template <class Parse> void expect_non_object_refused(Parse parse) {
  for (const auto& body : {json(), json::array(), json("text"), json(3)})
    expect_field_refused(parse, body, "the request must be a JSON object");
}

TEST(records_parse, workspace_bodies_name_the_bad_field) {
  expect_non_object_refused(parse_workspace_create);
  expect_field_refused(parse_workspace_create, json::object(),
                       "name: is required");
  expect_hostile_text_refused(parse_workspace_create, json::object(), "name");
  expect_field_refused(parse_workspace_create,
                       {{"name", "w"}, {"agentUserGroup", {{"agentUid", "0"}}}},
                       "agentUserGroup.agentUid");
  expect_field_refused(
      parse_workspace_create,
      {{"name", "w"}, {"agentUserGroup", {{"agentUser", hostile_nul}}}},
      "agentUserGroup.agentUser");
  expect_field_refused(parse_workspace_create,
                       {{"name", "w"}, {"checkpointStorageConfig", "s3"}},
                       "checkpointStorageConfig");
  expect_hostile_text_refused(parse_workspace_create, {{"name", "w"}},
                              "defaultAuxResourcePool");
  expect_field_refused(parse_workspace_create,
                       {{"name", "w"}, {"namespaces", 7}}, "namespaces");
  expect_field_refused(parse_workspace_edit, {{"id", "2"}}, "id");
  expect_field_refused(parse_workspace_edit, {{"name", "w"}},
                       "id: is required");
  expect_hostile_text_refused(parse_workspace_edit, {{"id", 2}}, "name");
  expect_field_refused(parse_workspace_archive,
                       {{"id", 2}, {"archived", "yes"}}, "archived");
  expect_field_refused(parse_workspace_delete, {{"id", -1}}, "id");
  expect_field_refused(parse_workspace_delete, {{"id", 1.5}}, "id");
  expect_field_refused(parse_workspace_pin, {{"id", 2}}, "pinned");
  expect_field_refused(parse_workspace_namespaces,
                       {{"id", 2}, {"set", {{"", hostile_nul}}}}, "set.");
  expect_field_refused(parse_workspace_namespaces,
                       {{"id", 2}, {"set", {{hostile_not_utf8, "ns"}}}}, "set");
  expect_field_refused(parse_workspace_namespaces,
                       {{"id", 2}, {"delete", {hostile_control}}}, "delete[]");
}

TEST(records_parse, project_and_move_bodies_name_the_bad_field) {
  expect_non_object_refused(parse_project_create);
  expect_field_refused(parse_project_create,
                       {{"workspaceId", "2"}, {"name", "p"}}, "workspaceId");
  expect_field_refused(parse_project_create, {{"workspaceId", 2}},
                       "name: is required");
  expect_hostile_text_refused(parse_project_create, {{"workspaceId", 2}},
                              "name");
  expect_hostile_text_refused(parse_project_edit, {{"id", 2}}, "key");
  expect_field_refused(parse_project_edit,
                       {{"id", 2}, {"description", hostile_not_utf8}},
                       "description");
  expect_field_refused(parse_project_notes, {{"id", 2}, {"notes", "x"}},
                       "notes");
  expect_field_refused(parse_project_notes, {{"id", 2}, {"add", 7}}, "note");
  expect_field_refused(parse_project_notes,
                       {{"id", 2}, {"add", {{"contents", "c"}}}}, "note.name");
  expect_field_refused(
      parse_project_notes,
      {{"id", 2}, {"notes", {{{"name", "n"}, {"contents", hostile_nul}}}}},
      "contents");
  expect_field_refused(parse_project_archive,
                       {{"id", 2}, {"archived", nullptr}}, "archived");
  expect_field_refused(parse_project_delete, {{"id", "two"}}, "id");
  expect_field_refused(parse_project_move,
                       {{"projectId", 2}, {"destinationWorkspaceId", "3"}},
                       "destinationWorkspaceId");
  expect_field_refused(parse_experiment_move,
                       {{"experimentId", 1.5}, {"destinationProjectId", 2}},
                       "experimentId");
  expect_field_refused(parse_experiment_move, {{"experimentId", 1}},
                       "destinationProjectId: is required");
}

TEST(records_parse, template_and_binding_bodies_name_the_bad_field) {
  json cfg{{"max_restarts", 1}};
  expect_hostile_text_refused(parse_template_create, {{"config", cfg}}, "name");
  expect_field_refused(parse_template_create,
                       {{"name", "t"}, {"config", "text"}}, "config");
  expect_field_refused(parse_template_create,
                       {{"name", "t"}, {"config", cfg}, {"workspaceId", 0}},
                       "workspaceId");
  expect_field_refused(parse_template_set, {{"name", "t"}},
                       "config: is required");
  expect_field_refused(parse_template_delete, {{"name", ""}}, "name");
  expect_field_refused(parse_template_delete, json::object(),
                       "name: is required");
  expect_hostile_text_refused(parse_template_delete, json::object(), "name");
  expect_hostile_text_refused(parse_pool_bind, {{"mode", "add"}}, "pool");
  expect_field_refused(parse_pool_bind, {{"pool", "p"}, {"mode", "mix"}},
                       "mode");
  expect_field_refused(
      parse_pool_bind,
      {{"pool", "p"}, {"mode", "add"}, {"workspaceIds", {"a"}}},
      "workspaceIds[]");
  expect_field_refused(parse_pool_bind,
                       {{"pool", "p"}, {"mode", "add"}, {"workspaceIds", 2}},
                       "workspaceIds");
  expect_field_refused(
      parse_pool_bind,
      {{"pool", "p"}, {"mode", "add"}, {"workspaceNames", {hostile_nul}}},
      "workspaceNames[]");
}

TEST(records_parse, model_bodies_name_the_bad_field) {
  expect_non_object_refused(parse_model_create);
  expect_field_refused(parse_model_create, {{"name", ""}}, "name");
  expect_hostile_text_refused(parse_model_create, json::object(), "name");
  expect_field_refused(parse_model_create, {{"name", "m"}, {"labels", "a"}},
                       "labels");
  expect_field_refused(parse_model_create,
                       {{"name", "m"}, {"labels", {hostile_control}}},
                       "labels[]");
  expect_field_refused(parse_model_create,
                       {{"name", "m"}, {"metadata", {1, 2}}}, "metadata");
  expect_field_refused(parse_model_create,
                       {{"name", "m"}, {"notes", hostile_not_utf8}}, "notes");
  expect_hostile_text_refused(parse_model_create, {{"name", "m"}},
                              "workspaceName");
  expect_field_refused(parse_model_create,
                       {{"name", "m"}, {"workspaceId", "1"}}, "workspaceId");
  expect_hostile_text_refused(parse_model_edit, json::object(), "model");
  expect_field_refused(parse_model_archive, {{"model", "m"}}, "archived");
  expect_hostile_text_refused(parse_model_delete, json::object(), "model");
  expect_field_refused(parse_version_register, {{"model", "m"}},
                       "checkpointUuid: is required");
  expect_hostile_text_refused(parse_version_register, {{"model", "m"}},
                              "checkpointUuid");
  expect_field_refused(
      parse_version_register,
      {{"model", "m"}, {"checkpointUuid", "c"}, {"comment", hostile_nul}},
      "comment");
  expect_field_refused(parse_version_edit, {{"model", "m"}, {"version", "2"}},
                       "version");
  expect_field_refused(parse_version_delete, {{"model", "m"}, {"version", 0}},
                       "version");
}

TEST(records_parse, config_policy_bodies_name_the_bad_field) {
  expect_non_object_refused(parse_set_config_policies);
  expect_field_refused(parse_set_config_policies, json::object(),
                       "workloadType: no workload type specified");
  expect_hostile_text_refused(parse_set_config_policies, json::object(),
                              "workloadType");
  expect_field_refused(parse_set_config_policies, {{"workloadType", "BOGUS"}},
                       "workloadType: invalid workload type 'BOGUS'");
  expect_field_refused(parse_set_config_policies,
                       {{"workloadType", "NTSC"}, {"workspaceId", "3"}},
                       "workspaceId");
  expect_field_refused(parse_delete_config_policies,
                       {{"workloadType", "NTSC"}, {"workspaceId", -3}},
                       "workspaceId");
}

TEST(records_parse, a_good_body_becomes_the_typed_command) {
  auto edit = parse_workspace_edit(
      {{"id", 3}, {"name", "w"}, {"defaultComputeResourcePool", "gpu"}});
  ASSERT_TRUE(edit) << render(edit.error());
  EXPECT_EQ(edit->id, 3);
  EXPECT_EQ(edit->fields.name, "w");
  EXPECT_FALSE(edit->fields.checkpoint_storage); // absent: kept
  ASSERT_TRUE(edit->fields.default_compute_pool);
  EXPECT_EQ(edit->fields.default_compute_pool->field,
            "defaultComputeResourcePool");
  EXPECT_EQ(edit->fields.default_compute_pool->name, "gpu");
  auto bind = parse_pool_bind({{"pool", "p"},
                               {"mode", "replace"},
                               {"workspaceIds", {2, 3}},
                               {"workspaceNames", {"w"}}});
  ASSERT_TRUE(bind) << render(bind.error());
  EXPECT_EQ(bind->mode, binding_mode::replace);
  EXPECT_EQ(bind->workspace_ids, (std::vector<int64_t>{2, 3}));
  auto version = parse_version_edit(
      {{"model", "7"}, {"version", 2}, {"labels", json::array()}});
  ASSERT_TRUE(version) << render(version.error());
  EXPECT_EQ(version->model, "7");
  ASSERT_TRUE(version->fields.labels); // present and empty: cleared
  EXPECT_TRUE(version->fields.labels->empty());
  EXPECT_FALSE(version->fields.name);
  auto policies = parse_set_config_policies(
      {{"workloadType", "EXPERIMENT"}, {"workspaceId", 0}});
  ASSERT_TRUE(policies) << render(policies.error());
  EXPECT_EQ(policies->workspace_id, 0); // the global scope
  EXPECT_TRUE(policies->policies.is_null());
}

// -- runs, unmanaged trials and webhooks (core/trials_parse.hpp,
//    core/webhooks.hpp) ------------------------------------------------------

TEST(records_parse, trial_bodies_name_the_bad_field) {
  expect_non_object_refused(parse_user_metrics_report);
  expect_non_object_refused(parse_unmanaged_checkpoint);
  expect_field_refused(parse_user_metrics_report, json::object(),
                       "trialId: is required");
  json report{{"trialId", 3}, {"group", "training"}, {"steps", 5}};
  expect_hostile_text_refused(parse_user_metrics_report, report, "group");
  report["steps"] = -1;
  expect_field_refused(parse_user_metrics_report, report,
                       "metrics.stepsCompleted");
  report["steps"] = "5";
  expect_field_refused(parse_user_metrics_report, report,
                       "metrics.stepsCompleted");
  report["steps"] = 5;
  report["metrics"] = json::array();
  expect_field_refused(parse_user_metrics_report, report, "metrics");
  report["metrics"] = {{"loss", 0.5}};
  auto good = parse_user_metrics_report(report);
  ASSERT_TRUE(good) << render(good.error());
  EXPECT_EQ(good->trial_id, 3);
  EXPECT_EQ(good->group, "training");
  EXPECT_EQ(good->steps, 5);
  EXPECT_EQ(good->metrics, json({{"loss", 0.5}}));
  expect_hostile_text_refused(parse_unmanaged_trial_open, {{"experimentId", 1}},
                              "externalTrialId");
  expect_hostile_text_refused(parse_unmanaged_experiment_open, json::object(),
                              "externalExperimentId");
  expect_field_refused(parse_unmanaged_trial_start,
                       {{"trialId", 1}, {"resume", "yes"}}, "resume");
  expect_field_refused(parse_unmanaged_trial_patch,
                       {{"trialId", 1}, {"state", "LOST"}}, "state: 'LOST'");
  auto patch = parse_unmanaged_trial_patch(
      {{"trialId", 1}, {"state", "STATE_COMPLETED"}});
  ASSERT_TRUE(patch) << render(patch.error());
  EXPECT_EQ(patch->state, std::optional<std::string>{"COMPLETED"});
  expect_field_refused(parse_unmanaged_checkpoint,
                       {{"trialId", 1}, {"uuid", hostile_nul}}, "uuid");
}

caf::expected<webhook_create> parse_admins_webhook(const json& b) {
  return parse_webhook_create(b, true);
}

TEST(records_parse, webhook_bodies_name_the_bad_field) {
  expect_non_object_refused(parse_admins_webhook);
  json hook{{"url", "http://127.0.0.1:9/x"},
            {"webhookType", "WEBHOOK_TYPE_DEFAULT"},
            {"triggers",
             {{{"triggerType", "TRIGGER_TYPE_EXPERIMENT_STATE_CHANGE"},
               {"condition", {{"state", "COMPLETED"}}}}}}};
  auto good = parse_admins_webhook(hook);
  ASSERT_TRUE(good) << render(good.error());
  EXPECT_EQ(good->mode, "WORKSPACE");
  EXPECT_EQ(good->triggers.size(), 1u);
  EXPECT_TRUE(good->as_admin); // the session's say, as the API passed it
  for (const char* bad : {"ftp://h/x", "http://user:pw@h/x", "http://h/a b"}) {
    auto body = hook;
    body["url"] = bad;
    expect_field_refused(parse_admins_webhook, body, "url");
  }
  expect_hostile_text_refused(parse_admins_webhook, hook, "name");
  auto body = hook;
  body["triggers"] = json::array();
  expect_field_refused(parse_admins_webhook, body, "triggers");
  body["triggers"] = {{{"triggerType", "TRIGGER_TYPE_TASK_LOG"},
                       {"condition", {{"regex", std::string(2000, 'a')}}}}};
  expect_field_refused(parse_admins_webhook, body,
                       "triggers[0].condition.regex");
  // A non-admin's global webhook: refused for who asks, before the rest.
  auto global = parse_webhook_create({{"triggers", json::array()}}, false);
  ASSERT_FALSE(global);
  EXPECT_NE(render(global.error()).find("url"), std::string::npos)
      << "the url is read first: " << render(global.error());
  global = parse_webhook_create(
      {{"url", "http://h/x"}, {"webhookType", "WEBHOOK_TYPE_SLACK"}}, false);
  ASSERT_FALSE(global);
  EXPECT_EQ(code_of(global.error()), errc::failed_precondition);
  EXPECT_NE(render(global.error()).find("non admin"), std::string::npos)
      << render(global.error());
  expect_field_refused(parse_webhook_patch, {{"url", "http://h/"}},
                       "id: is required");
  expect_field_refused(
      parse_webhook_alert,
      {{"experimentId", 1}, {"data", {{"title", hostile_nul}}}}, "title");
}

} // namespace
} // namespace det
