// What an experiment's and a trial's JSON show after the changes `det`
// makes to them: resources in the config, the list row's fields upstream
// returns, a trial's log retention.

#include "api/views.hpp"
#include "state/queries.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

using namespace det;
using namespace det::test;

namespace {

struct experiment_views : master_api_test {};

TEST_F(experiment_views, set_priority_weight_and_max_slots_show_in_the_config) {
  ASSERT_EQ(
      write("POST", "/api/v1/experiments", create_body(good_config)).status,
      200);
  // As `det experiment set priority|weight|max-slots` send them.
  for (auto body : {R"({"id": 1, "resources": {"priority": 20}})",
                    R"({"id": 1, "resources": {"weight": 2.5}})",
                    R"({"id": 1, "resources": {"maxSlots": 3}})"}) {
    auto r = write("PATCH", "/api/v1/experiments/1", body);
    ASSERT_EQ(r.status, 200) << body << " " << r.body;
  }
  auto e = json::parse(call("GET", "/api/v1/experiments/1").body)["experiment"];
  EXPECT_EQ(e["config"]["resources"]["priority"], 20) << e["config"].dump();
  EXPECT_EQ(e["config"]["resources"]["weight"], 2.5);
  EXPECT_EQ(e["config"]["resources"]["max_slots"], 3);
  auto list = json::parse(call("GET", "/api/v1/experiments").body);
  EXPECT_EQ(list["experiments"][0]["config"]["resources"]["priority"], 20);
}

TEST_F(experiment_views,
       an_edit_with_a_bad_field_is_a_400_naming_it_and_writes_nothing) {
  ASSERT_EQ(
      write("POST", "/api/v1/experiments", create_body(good_config)).status,
      200);
  auto before = log.last_position();
  for (const auto& [body, field] :
       std::vector<std::pair<std::string, std::string>>{
           {R"({"name": "a\u0000b"})", "name"},
           {R"({"labels": ["ok", 7]})", "labels[1]"},
           {R"({"resources": {"priority": 0}})", "resources.priority"},
           {R"({"resources": {"weight": "heavy"}})", "resources.weight"},
           {R"({"checkpointStorage": {"saveTrialBest": -1}})",
            "checkpointStorage.saveTrialBest"},
           {R"({"owner": "mallory"})", "owner"},
           {R"({"id": 2, "notes": "x"})", "id"},
           {R"([1])", "not a JSON object"}}) {
    auto r = call("PATCH", "/api/v1/experiments/1", body);
    EXPECT_EQ(r.status, 400) << body << " " << r.body;
    EXPECT_NE(r.body.find(field), std::string::npos) << body << " " << r.body;
  }
  EXPECT_EQ(log.last_position(), before) << "a refused edit wrote events";
  // An experiment that does not exist is the master's to say.
  EXPECT_EQ(call("PATCH", "/api/v1/experiments/9", R"({"notes": "x"})").status,
            404);
  // A good edit sets every field it names in one change.
  auto r = write("PATCH", "/api/v1/experiments/1",
                 R"({"name": "renamed", "resources": {"priority": 7}})");
  ASSERT_EQ(r.status, 200) << r.body;
  auto e = json::parse(call("GET", "/api/v1/experiments/1").body)["experiment"];
  EXPECT_EQ(e["name"], "renamed") << e.dump();
  EXPECT_EQ(e["config"]["resources"]["priority"], 7) << e["config"].dump();
}

TEST_F(experiment_views, a_list_row_has_the_fields_upstream_returns) {
  ASSERT_EQ(write("POST", "/api/v1/experiments",
                  create_body(std::string{good_config}
                              + "hyperparameters:\n  lr: 0.1\n"))
                .status,
            200);
  auto list = json::parse(call("GET", "/api/v1/experiments").body);
  auto row = list["experiments"][0];
  for (auto key : {"checkpointCount", "checkpointSize", "displayName",
                   "forkedFrom", "hyperparameters", "userId"})
    EXPECT_TRUE(row.contains(key)) << key << " " << row.dump();
  EXPECT_EQ(row["checkpointCount"], 0);
  EXPECT_EQ(row["checkpointSize"], "0");
  // As the config keeps it (upstream stores a constant so too).
  EXPECT_EQ(row["hyperparameters"]["lr"]["val"], 0.1);
  EXPECT_GT(row["userId"].get<int64_t>(), 0);
  EXPECT_TRUE(row["forkedFrom"].is_null());
  // Ended, it has an end time and a duration.
  ASSERT_EQ(write("POST", "/api/v1/experiments/1/kill").status, 200);
  row = json::parse(call("GET", "/api/v1/experiments").body)["experiments"][0];
  EXPECT_EQ(row["state"], "STATE_CANCELED") << row.dump();
  EXPECT_TRUE(row["endTime"].is_string()) << row.dump();
  EXPECT_GE(row["duration"].get<int64_t>(), 0);
}

TEST_F(experiment_views, a_trials_log_retention_shows_once_set) {
  run_trial_1();
  auto before = json::parse(call("GET", "/api/v1/trials/1").body)["trial"];
  EXPECT_FALSE(before.contains("logRetentionDays")) << before.dump();
  auto r = write("PUT", "/api/v1/trials/1/retain_logs", R"({"numDays": 50})");
  ASSERT_EQ(r.status, 200) << r.body;
  auto t = json::parse(call("GET", "/api/v1/trials/1").body)["trial"];
  EXPECT_EQ(t["logRetentionDays"], 50) << t.dump();
}

} // namespace

namespace {

TEST_F(experiment_views, restarts_show_at_most_max_restarts_as_upstream) {
  // One failure with max_restarts 0: the trial errors, and shows 0
  // restarts (upstream does not count the failure that ends it).
  ASSERT_EQ(write("POST", "/api/v1/experiments",
                  create_body(std::string{good_config} + "max_restarts: 0\n"))
                .status,
            200);
  connect_agent("a1", 1);
  ASSERT_TRUE(await_read([](const state::cluster_state& s) {
    return s.allocations.count("1.1") != 0;
  }));
  caf::anon_send(ctx->master, command{allocation_exit_report{std::string{"1.1"},
                                                             int32_t{1}}});
  ASSERT_TRUE(await_read([](const state::cluster_state& s) {
    auto t = s.trials.find(1);
    return t != s.trials.end()
           && t->second.status == state::trial_status::errored;
  }));
  auto t = json::parse(call("GET", "/api/v1/trials/1").body)["trial"];
  EXPECT_EQ(t["state"], "STATE_ERROR") << t.dump();
  EXPECT_EQ(t["restarts"], 0) << t.dump();
}

} // namespace

namespace {

TEST_F(experiment_views,
       live_lists_leave_out_experiments_of_archived_projects) {
  // Experiment 1 in project "p" of workspace "w", experiment 2 stays in
  // the default project.
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(
        write("POST", "/api/v1/experiments", create_body(good_config)).status,
        200);
  auto ws =
      json::parse(write("POST", "/api/v1/workspaces", R"({"name": "w"})").body);
  auto wid = std::to_string(ws["workspace"]["id"].get<int64_t>());
  auto pj = json::parse(write("POST", "/api/v1/workspaces/" + wid + "/projects",
                              R"({"name": "p", "workspaceId": )" + wid + "}")
                            .body);
  auto pid = std::to_string(pj["project"]["id"].get<int64_t>());
  ASSERT_EQ(write("POST", "/api/v1/experiments/1/move",
                  R"({"destinationProjectId": )" + pid + "}")
                .status,
            200);
  auto ids = [&](const std::string& query) {
    std::vector<int64_t> out;
    auto r = call("GET", "/api/v1/experiments" + query);
    EXPECT_EQ(r.status, 200) << r.body;
    auto listed = json::parse(r.body);
    for (const auto& e : listed["experiments"])
      out.push_back(e["id"].get<int64_t>());
    return out;
  };
  EXPECT_EQ(ids("?archived=false"), (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(write("POST", "/api/v1/projects/" + pid + "/archive").status, 200);
  EXPECT_EQ(ids("?archived=false"), (std::vector<int64_t>{2}));
  // Of the archived project itself, its live experiments are listed.
  EXPECT_EQ(ids("?archived=false&projectId=" + pid), (std::vector<int64_t>{1}));
  // No experiment moves out of an archived project.
  auto out = write("POST", "/api/v1/experiments/1/move",
                   R"({"destinationProjectId": 1})");
  EXPECT_EQ(out.status, 400) << out.body;
  EXPECT_NE(out.body.find("experimentId: its project 'p' is archived"),
            std::string::npos)
      << out.body;
  EXPECT_EQ(ids(""), (std::vector<int64_t>{1, 2}));
  // So for an archived workspace.
  ASSERT_EQ(write("POST", "/api/v1/projects/" + pid + "/unarchive").status,
            200);
  ASSERT_EQ(write("POST", "/api/v1/workspaces/" + wid + "/archive").status,
            200);
  EXPECT_EQ(ids("?archived=false"), (std::vector<int64_t>{2}));
}

} // namespace

namespace {

TEST_F(experiment_views, its_owner_reports_metrics_for_a_trial_not_running) {
  // No agent: trial 1 waits, with no allocation.
  ASSERT_EQ(
      write("POST", "/api/v1/experiments", create_body(good_config)).status,
      200);
  ASSERT_TRUE(await_read(
      [](const state::cluster_state& s) { return s.trials.count(1) != 0; }));
  auto report = [](const char* group) {
    return json{{"group", group},
                {"metrics",
                 {{"trialId", 1},
                  {"stepsCompleted", 10},
                  {"metrics", {{"avgMetrics", {{"lossx", 3.3}}}}}}}}
        .dump();
  };
  auto r = write("POST", "/api/v1/trials/1/metrics", report("abc"));
  ASSERT_EQ(r.status, 200) << r.body;
  auto t = json::parse(call("GET", "/api/v1/trials/1").body)["trial"];
  EXPECT_EQ(t["summaryMetrics"]["abc"]["lossx"]["last"], 3.3) << t.dump();
  // Not progress: the trial has trained nothing.
  EXPECT_EQ(t["totalBatchesProcessed"], 0);

  // Another user's session may not; nor may one while the trial runs.
  auto other = plain_user_token("olga");
  EXPECT_EQ(
      write("POST", "/api/v1/trials/1/metrics", report("abc"), other).status,
      403);
  connect_agent("a1", 1);
  ASSERT_TRUE(await_read([](const state::cluster_state& s) {
    return s.allocations.count("1.1") != 0;
  }));
  EXPECT_EQ(write("POST", "/api/v1/trials/1/metrics", report("abc")).status,
            403);
}

} // namespace

namespace {

TEST(start_frames, carry_the_configured_cluster_id_and_the_cluster_uuid) {
  start_order o;
  o.allocation_id = "1.1";
  o.trial_id = 1;
  o.experiment_id = 1;
  auto f = api::start_frame(o, json::object(),
                            {"http://127.0.0.1:8080", "/ck", "c-1", "uuid-1"},
                            "tok");
  EXPECT_EQ(f["env"]["DET_CLUSTER_ID"], "c-1");
  EXPECT_EQ(f["env"]["DET_CLUSTER_UUID"], "uuid-1");
  EXPECT_EQ(f["env"]["DET_SESSION_TOKEN"], "tok");
}

} // namespace

namespace {

TEST_F(experiment_views, a_trials_task_is_served_by_its_task_id) {
  run_trial_1();
  auto t = json::parse(call("GET", "/api/v1/trials/1").body)["trial"];
  auto base = state::task_id_of(1, 1);
  EXPECT_EQ(t["taskIds"], json::array({base})) << t.dump();
  auto r = call("GET", "/api/v1/tasks/" + base);
  ASSERT_EQ(r.status, 200) << r.body;
  auto task = json::parse(r.body)["task"];
  EXPECT_EQ(task["taskId"], base);
  EXPECT_EQ(task["taskType"], "TASK_TYPE_TRIAL");
  EXPECT_TRUE(task["startTime"].is_string());
  EXPECT_FALSE(task.contains("endTime")) << task.dump(); // still running
  // Not continued: no second task.
  EXPECT_EQ(call("GET", "/api/v1/tasks/" + base + "-1").status, 404);
}

} // namespace
