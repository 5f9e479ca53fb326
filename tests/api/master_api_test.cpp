// The REST routes over a real master actor (synchronous writer, memory
// event log) and the API bridge, without a network: requests go straight
// to the router, answers come back through captured responders and are
// awaited with futures.
#include "state/queries.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

using namespace det;
using namespace det::test;

TEST_F(master_api_test, info_answers_a_pep440_version) {
  auto r = call("GET", "/info");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["version"], "0.38.1");
}

TEST_F(master_api_test, master_id_is_a_uuid_of_this_process_in_both_answers) {
  auto info = json::parse(call("GET", "/info").body);
  auto master = json::parse(call("GET", "/api/v1/master").body);
  auto id = info["master_id"].get<std::string>();
  static const std::regex uuid4{
      "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"};
  EXPECT_TRUE(std::regex_match(id, uuid4)) << id;
  EXPECT_EQ(master["masterId"], id);
  EXPECT_EQ(master["clusterId"], info["cluster_id"]);
  // What the CLI and the WebUI read beyond the required fields.
  EXPECT_EQ(master["rbacEnabled"], false);
  EXPECT_EQ(master["userManagementEnabled"], true);
  EXPECT_TRUE(master["featureSwitches"].is_array());
  EXPECT_EQ(info["telemetry"]["enabled"], false);
  // Another process (context) is another master id.
  api::api_context other;
  EXPECT_NE(other.master_id, id);
}

TEST_F(master_api_test, a_valid_experiment_is_created_with_its_model_def) {
  auto r = call("POST", "/api/v1/experiments", create_body(good_config));
  ASSERT_EQ(r.status, 200) << r.body;
  auto j = json::parse(r.body);
  EXPECT_EQ(j["experiment"]["id"], 1);
  // Active with no trial placed yet (no agent): QUEUED, as upstream shows it.
  EXPECT_EQ(j["experiment"]["state"], "STATE_QUEUED");
  auto d = call("GET", "/api/v1/experiments/1/model_def");
  ASSERT_EQ(d.status, 200) << d.body;
  EXPECT_FALSE(json::parse(d.body)["b64Tgz"].get<std::string>().empty());
  auto t = json::parse(call("GET", "/api/v1/experiments/1/trials").body);
  EXPECT_EQ(t["trials"].size(), 1u);
  EXPECT_EQ(json::parse(call("GET", "/api/v1/experiments").body)["experiments"]
                .size(),
            1u);
}

TEST_F(master_api_test,
       a_bad_config_is_refused_naming_the_field_and_logs_nothing) {
  auto before = log.last_position();
  ASSERT_TRUE(before);
  auto r = call("POST", "/api/v1/experiments",
                create_body("name: t\nsearcher:\n  name: single\n"));
  EXPECT_EQ(r.status, 400);
  auto err = json::parse(r.body)["error"];
  EXPECT_EQ(err["code"], 3);
  EXPECT_NE(err["error"].get<std::string>().find("entrypoint"),
            std::string::npos);
  EXPECT_EQ(call("GET", "/api/v1/experiments/1").status, 404);
  auto after = log.last_position();
  ASSERT_TRUE(after);
  EXPECT_EQ(*after, *before) << "a refused request appended events";
}

TEST_F(master_api_test, a_model_file_climbing_out_is_refused) {
  auto body = json::parse(create_body(good_config));
  body["modelDefinition"][0]["path"] = "../evil.py";
  auto r = call("POST", "/api/v1/experiments", body.dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("modelDefinition[0].path"), std::string::npos);
}

TEST_F(
    master_api_test,
    lists_are_gzip_coded_for_a_client_that_accepts_it_and_rows_omit_the_submitted_text) {
  ASSERT_EQ(
      call("POST", "/api/v1/experiments", create_body(good_config)).status,
      200);
  // The searcher's first step (the trial) may land just after the answer:
  // read until the trial is there, so the three reads below see one state
  // (under ASan the step can land between two reads). Bounded; each try is
  // a round trip, no sleep.
  bool settled = false;
  for (int i = 0; i < 500 && !settled; ++i) {
    auto l =
        json::parse(call("GET", "/api/v1/experiments").body, nullptr, false);
    settled = l.is_object() && l["experiments"].size() == 1
              && l["experiments"][0]["numTrials"] == 1;
  }
  ASSERT_TRUE(settled) << "the experiment's trial never appeared";
  for (const char* path : {"/api/v1/experiments", "/api/v1/agents"}) {
    auto plain = call("GET", path);
    ASSERT_EQ(plain.status, 200) << plain.body;
    EXPECT_FALSE(plain.headers.get("Content-Encoding")) << path;
    EXPECT_EQ(plain.headers.get("Vary").value_or(""), "Accept-Encoding");
    extra_headers["Accept-Encoding"] = "gzip, deflate"; // as python-requests
    auto coded = call("GET", path);
    extra_headers.clear();
    ASSERT_EQ(coded.status, 200);
    EXPECT_EQ(coded.headers.get("Content-Encoding").value_or(""), "gzip")
        << path;
    EXPECT_EQ(coded.headers.get("Vary").value_or(""), "Accept-Encoding");
    EXPECT_EQ(test::gunzip(coded.body), plain.body) << path;
    // gzip refused by weight: the plain text.
    extra_headers["Accept-Encoding"] = "gzip;q=0, identity";
    auto refused = call("GET", path);
    extra_headers.clear();
    EXPECT_EQ(refused.body, plain.body) << path;
  }
  EXPECT_EQ(json::parse(call("GET", "/api/v1/experiments")
                            .body)["experiments"][0]["numTrials"],
            1);
  // A list row leaves originalConfig empty (as upstream's list does); the
  // experiment's own answer has it.
  auto list = json::parse(call("GET", "/api/v1/experiments").body);
  ASSERT_EQ(list["experiments"].size(), 1u);
  EXPECT_EQ(list["experiments"][0]["originalConfig"], "");
  EXPECT_TRUE(list["experiments"][0]["config"].is_object());
  auto one = json::parse(call("GET", "/api/v1/experiments/1").body);
  EXPECT_NE(one["experiment"]["originalConfig"].get<std::string>(), "");
}

TEST_F(master_api_test, experiments_pause_and_activate) {
  ASSERT_EQ(
      call("POST", "/api/v1/experiments", create_body(good_config)).status,
      200);
  EXPECT_EQ(call("POST", "/api/v1/experiments/1/pause").status, 200);
  auto e = json::parse(call("GET", "/api/v1/experiments/1").body);
  EXPECT_EQ(e["experiment"]["state"], "STATE_PAUSED");
  EXPECT_EQ(call("POST", "/api/v1/experiments/1/activate").status, 200);
  EXPECT_EQ(call("POST", "/api/v1/experiments/7/kill").status, 404);
}

TEST_F(master_api_test, trial_logs_are_served_as_result_lines) {
  ctx->logs->add(3, "a1", {"hello", "world"}, 1);
  auto r = call("GET", "/api/v1/trials/3/logs");
  EXPECT_EQ(r.status, 200);
  auto nl = r.body.find('\n');
  ASSERT_NE(nl, std::string::npos);
  EXPECT_EQ(json::parse(r.body.substr(0, nl))["result"]["log"], "hello\n");
}

TEST_F(master_api_test, a_trials_logs_filter_by_their_fields) {
  ctx->logs->add(5, "a1", {"one", "two"}, 1);
  ctx->logs->add(5, "a2", {"three"}, 2);
  auto count = [&](const std::string& query) {
    auto r = call("GET", "/api/v1/trials/5/logs" + query);
    EXPECT_EQ(r.status, 200) << query << " " << r.body;
    return std::count(r.body.begin(), r.body.end(), '\n');
  };
  EXPECT_EQ(count(""), 3);
  EXPECT_EQ(count("?agentIds=a2"), 1);
  EXPECT_EQ(count("?agentIds=a1&agentIds=a2"), 3);
  EXPECT_EQ(count("?containerIds=a1"), 2);
  EXPECT_EQ(count("?rankIds=-1"), 3); // no rank
  EXPECT_EQ(count("?rankIds=-2"), 0);
  EXPECT_EQ(count("?stdtypes=stdout&sources=task"), 3);
  EXPECT_EQ(count("?stdtypes=stderr"), 0);
  auto bad = call("GET", "/api/v1/trials/5/logs?rankIds=x");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("rankIds:"), std::string::npos) << bad.body;
  // Every value the fields name passes some line.
  auto fields = call("GET", "/api/v1/trials/5/logs/fields?follow=true");
  ASSERT_EQ(fields.status, 200) << fields.body;
  auto f = json::parse(fields.body.substr(0, fields.body.find('\n')))["result"];
  EXPECT_EQ(f["agentIds"], json::array({"a1", "a2"})) << f.dump();
  EXPECT_EQ(f["stdtypes"], json::array({"stdout"}));
  auto by_task =
      call("GET", "/api/v1/tasks/" + state::task_id_of(1, 5) + "/logs/fields");
  ASSERT_EQ(by_task.status, 200) << by_task.body;
  EXPECT_NE(by_task.body.find("a2"), std::string::npos);
  // A task's fields name allocations too (upstream's SDK reads every key).
  EXPECT_NE(by_task.body.find("\"allocationIds\":[]"), std::string::npos)
      << by_task.body;
}

TEST_F(master_api_test,
       a_trials_log_line_keeps_its_nul_bytes_and_loses_bad_ones) {
  // As upstream's: a trial may log NULs and reads them back. Bytes that
  // are not UTF-8 still become U+FFFD.
  std::string line{"Logs\0Can\0Have\xff", 14};
  ctx->logs->add(4, "a1", {line}, 1);
  auto r = call("GET", "/api/v1/trials/4/logs");
  ASSERT_EQ(r.status, 200) << r.body;
  auto shown = json::parse(r.body.substr(0, r.body.find('\n')))["result"]["log"]
                   .get<std::string>();
  EXPECT_EQ(shown, std::string("Logs\0Can\0Have\xEF\xBF\xBD\n", 17));
}

TEST_F(master_api_test,
       a_bare_list_of_task_logs_nested_without_end_is_refused) {
  // POST /task-logs takes a list, not an object: it must be checked as
  // every object body is (this one overflowed the I/O thread's stack).
  const int depth = 200000;
  auto r = call("POST", "/task-logs",
                std::string(depth, '[') + std::string(depth, ']'));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("deeper"), std::string::npos) << r.body;
  EXPECT_EQ(call("POST", "/task-logs", "[1, 2]").status, 400);
}

TEST_F(master_api_test,
       namespace_bindings_and_quotas_are_refused_on_det_agents) {
  // Without the kubernetes resource manager there are no namespaces: a
  // client's request is a 400 that says so, never a 5xx, nothing written.
  auto quota = call("POST", "/api/v1/workspaces",
                    R"({"name": "q", "clusterQuotaPairs": {"": 5}})");
  EXPECT_EQ(quota.status, 400) << quota.body;
  EXPECT_NE(quota.body.find("clusterQuotaPairs"), std::string::npos);
  auto bound = call(
      "POST", "/api/v1/workspaces",
      R"({"name": "n", "clusterNamespaceMeta": {"": {"namespace": "team"}}})");
  EXPECT_EQ(bound.status, 400) << bound.body;
  EXPECT_NE(bound.body.find("resource_manager.type kubernetes"),
            std::string::npos)
      << bound.body;
  EXPECT_EQ(call("GET", "/api/v1/workspaces/1/list-namespace-bindings").status,
            400);
  auto list = json::parse(call("GET", "/api/v1/workspaces").body);
  for (const auto& w : list["workspaces"])
    EXPECT_NE(w["name"], "q");
}

TEST_F(master_api_test, task_logs_from_the_harness_join_the_trial_log) {
  run_trial_1();
  auto body = json{{"logs", json::array({{{"task_id", "1"},
                                          {"allocation_id", "1.1"},
                                          {"log", "from the harness\n"},
                                          {"stdtype", "stdout"}}})}}
                  .dump();
  EXPECT_EQ(call("POST", "/api/v1/task/logs", body, std::string{}).status, 401);
  // The token of an allocation that is not live is nobody's.
  EXPECT_EQ(
      call("POST", "/api/v1/task/logs", body, ctx->tokens->token_for("5.1"))
          .status,
      401);
  // A user session is not the trial's token.
  EXPECT_EQ(call("POST", "/api/v1/task/logs", body).status, 403);
  EXPECT_TRUE(ctx->logs->since(1).empty());
  auto ok =
      call("POST", "/api/v1/task/logs", body, ctx->tokens->token_for("1.1"),
           "Grpc-Metadata-x-allocation-token");
  EXPECT_EQ(ok.status, 200) << ok.body;
  auto lines = ctx->logs->since(1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "from the harness");
}

TEST_F(master_api_test, trial_side_calls_with_bad_input_name_the_field) {
  run_trial_1();
  auto token = ctx->tokens->token_for("1.1");
  auto progress =
      call("POST", "/api/v1/trials/1/progress", R"({"progress": 1.5})", token);
  EXPECT_EQ(progress.status, 400);
  EXPECT_NE(progress.body.find("progress"), std::string::npos);
  auto run = call("POST", "/api/v1/runs/start", R"({"runId": "x"})", token);
  EXPECT_EQ(run.status, 400);
  EXPECT_NE(run.body.find("runId"), std::string::npos);
  auto long_group = "\"" + std::string(256, 'g') + "\"";
  for (const std::string g : {R"("a.b")", R"("")", "7", R"("x\u0000y")",
                              R"("bell\u0007")", long_group.c_str()}) {
    auto group =
        call("POST", "/api/v1/trials/1/metrics",
             std::string{R"({"metrics": {}, "group": )"} + g + "}", token);
    EXPECT_EQ(group.status, 400) << g;
    EXPECT_NE(group.body.find("group"), std::string::npos) << g;
  }
  // No group is the empty group, as in upstream's request.
  auto absent = call("POST", "/api/v1/trials/1/metrics",
                     R"({"metrics": {"stepsCompleted": 1}})", token);
  EXPECT_EQ(absent.status, 400) << absent.body;
  EXPECT_NE(absent.body.find("group must not be empty"), std::string::npos)
      << absent.body;
  // Another trial's endpoint with this trial's token changes nothing.
  EXPECT_EQ(
      call("POST", "/api/v1/trials/99/progress", R"({"progress": 0.5})", token)
          .status,
      403);
}

TEST_F(master_api_test,
       a_trial_reports_a_group_of_its_own_and_its_summary_shows_it) {
  run_trial_1();
  auto token = ctx->tokens->token_for("1.1");
  auto report = [&](const std::string& group, int64_t steps, double loss) {
    auto r = call("POST", "/api/v1/trials/1/metrics",
                  json{{"group", group},
                       {"metrics",
                        {{"trialId", 1},
                         {"trialRunId", 1},
                         {"stepsCompleted", steps},
                         {"metrics", {{"avgMetrics", {{"loss", loss}}}}}}}}
                      .dump(),
                  token);
    EXPECT_EQ(r.status, 200) << group << ": " << r.body;
    return r.headers.get("X-Det-Position").value_or("0");
  };
  report("group_b", 10, 1.0);
  report("training", 10, 4.0);
  extra_headers["X-Det-Min-Position"] = report("group_b", 20, 3.0);
  auto got = call("GET", "/api/v1/trials/1");
  ASSERT_EQ(got.status, 200) << got.body;
  auto trial = json::parse(got.body)["trial"];
  const auto& b = trial["summaryMetrics"]["group_b"]["loss"];
  EXPECT_EQ(b["count"], 2);
  EXPECT_EQ(b["min"], 1.0);
  EXPECT_EQ(b["max"], 3.0);
  EXPECT_EQ(b["mean"], 2.0);
  EXPECT_EQ(b["last"], 3.0);
  EXPECT_EQ(b["type"], "number");
  EXPECT_EQ(trial["summaryMetrics"]["avg_metrics"]["loss"]["last"], 4.0);
  EXPECT_FALSE(trial["summaryMetrics"].contains("validation_metrics"));
  EXPECT_EQ(trial["totalBatchesProcessed"], 20);
  // Another group is no validation: nothing for the searcher.
  EXPECT_FALSE(trial.contains("latestValidation"));
  EXPECT_FALSE(trial.contains("searcherMetricValue"));
}

TEST_F(master_api_test, login_me_and_logout_with_the_clis_hashed_password) {
  auto bad = call("POST", "/api/v1/auth/login",
                  json{{"username", "admin"},
                       {"password", api::client_hash("nope")},
                       {"isHashed", true}}
                      .dump(),
                  "");
  EXPECT_EQ(bad.status, 401);
  EXPECT_EQ(json::parse(bad.body)["error"]["error"], "invalid credentials");
  auto me = json::parse(call("GET", "/api/v1/me").body);
  EXPECT_EQ(me["user"]["username"], "admin");
  EXPECT_EQ(me["user"]["admin"], true);
  EXPECT_EQ(call("GET", "/api/v1/me", "", "not-a-token").status, 401);
  // The cookie the proxy reads outlives a browser restart; logout clears
  // it.
  auto good = call(
      "POST", "/api/v1/auth/login",
      json{{"username", "admin"}, {"password", ""}, {"isHashed", true}}.dump(),
      "");
  ASSERT_EQ(good.status, 200) << good.body;
  auto cookie = good.headers.get("Set-Cookie").value_or("");
  EXPECT_EQ(
      cookie.rfind("auth=" + json::parse(good.body)["token"].get<std::string>()
                       + ";",
                   0),
      0u)
      << cookie;
  EXPECT_NE(cookie.find("Max-Age=2592000"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos) << cookie;
  auto out = call("POST", "/api/v1/auth/logout");
  EXPECT_EQ(out.status, 200);
  EXPECT_NE(out.headers.get("Set-Cookie")
                .value_or("")
                .find("auth=; Path=/; Max-Age=0"),
            std::string::npos);
  EXPECT_EQ(call("GET", "/api/v1/me").status, 401);
}

TEST_F(master_api_test, a_new_user_logs_in_with_its_password_and_is_not_admin) {
  auto r = call("POST", "/api/v1/users",
                json{{"user", {{"username", "carol"}, {"admin", false}}},
                     {"password", api::client_hash("Secret123")},
                     {"isHashed", true}}
                    .dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(call("POST", "/api/v1/users",
                 json{{"user", {{"username", "carol"}}}}.dump())
                .status,
            409);
  auto login = call("POST", "/api/v1/auth/login",
                    json{{"username", "carol"},
                         {"password", "Secret123"},
                         {"isHashed", false}}
                        .dump(),
                    "");
  ASSERT_EQ(login.status, 200) << login.body;
  auto token = json::parse(login.body)["token"].get<std::string>();
  EXPECT_EQ(call("GET", "/api/v1/master/config", "", token).status, 403);
  // Any user reads the master's log, as upstream (det trial
  // support-bundle gathers it); only an admin changes its level.
  EXPECT_EQ(call("GET", "/api/v1/master/logs?limit=1", "", token).status, 200);
  EXPECT_EQ(call("PATCH", "/api/v1/master/config",
                 R"({"config":{"log":{"level":"LOG_LEVEL_DEBUG"}},)"
                 R"("fieldMask":{"paths":["log.level"]}})",
                 token)
                .status,
            403);
  EXPECT_EQ(call("POST", "/api/v1/users",
                 json{{"user", {{"username", "dave"}}}}.dump(), token)
                .status,
            403);
  EXPECT_EQ(call("GET", "/api/v1/master/config").status, 200);
  // An admin's change of the level shows in the config (and is undone).
  auto level = [&] {
    return json::parse(
        call("GET", "/api/v1/master/config").body)["config"]["log"]["level"];
  };
  auto before = level();
  auto set = [&](const char* name) {
    return call("PATCH", "/api/v1/master/config",
                std::string{R"({"config":{"log":{"level":")"} + name
                    + R"("}},"fieldMask":{"paths":["log.level"]}})")
        .status;
  };
  EXPECT_EQ(set("LOG_LEVEL_ERROR"), 200);
  EXPECT_EQ(level(), "error");
  auto back = "LOG_LEVEL_" + before.get<std::string>();
  std::transform(back.begin(), back.end(), back.begin(),
                 [](unsigned char ch) { return std::toupper(ch); });
  EXPECT_EQ(set(back.c_str()), 200);
  EXPECT_EQ(level(), before);
}

TEST_F(master_api_test,
       a_client_reads_its_own_write_at_the_position_the_write_named) {
  auto created = call("POST", "/api/v1/experiments", create_body(good_config));
  ASSERT_EQ(created.status, 200) << created.body;
  auto written = created.headers.get("X-Det-Position");
  ASSERT_TRUE(written.has_value());
  auto at = std::stoll(*written);
  EXPECT_GT(at, 0);
  auto id = json::parse(created.body)["experiment"]["id"].get<int64_t>();

  extra_headers["X-Det-Min-Position"] = *written;
  auto paused =
      call("POST", "/api/v1/experiments/" + std::to_string(id) + "/pause");
  ASSERT_EQ(paused.status, 200) << paused.body;
  auto after_pause = std::stoll(paused.headers.get("X-Det-Position").value());
  EXPECT_GT(after_pause, at);

  extra_headers["X-Det-Min-Position"] = std::to_string(after_pause);
  auto read = call("GET", "/api/v1/experiments/" + std::to_string(id));
  ASSERT_EQ(read.status, 200) << read.body;
  EXPECT_GE(std::stoll(read.headers.get("X-Det-Position").value()),
            after_pause);
  EXPECT_EQ(json::parse(read.body)["experiment"]["state"], "STATE_PAUSED");

  auto list = call("GET", "/api/v1/experiments");
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(json::parse(list.body)["experiments"].size(), 1u);
  EXPECT_TRUE(list.headers.get("X-Det-Position").has_value());
}

TEST_F(master_api_test,
       a_read_at_a_position_the_log_never_reaches_is_refused_with_503) {
  ctx->request_timeout = std::chrono::milliseconds{100};
  extra_headers["X-Det-Min-Position"] = "1000000";
  auto r = call("GET", "/api/v1/experiments");
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_NE(r.body.find("did not reach position 1000000"), std::string::npos)
      << r.body;
  extra_headers["X-Det-Min-Position"] = "soon";
  r = call("GET", "/api/v1/agents");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("X-Det-Min-Position"), std::string::npos) << r.body;
}

TEST_F(master_api_test,
       two_creates_of_one_user_at_once_make_one_user_and_one_409) {
  auto body =
      R"({"user":{"username":"twin","admin":false},"password":"","isHashed":true})";
  std::vector<std::future<http::http_response>> answers;
  for (int i = 0; i < 2; ++i) {
    http::http_request req;
    req.method = "POST";
    req.path = req.target = "/api/v1/users";
    req.body = body;
    req.headers.set("Authorization", "Bearer " + admin_token_);
    auto done = std::make_shared<std::promise<http::http_response>>();
    answers.push_back(done->get_future());
    routes.dispatch(req,
                    http::responder::capture([done](http::http_response r) {
                      done->set_value(std::move(r));
                    }));
  }
  std::vector<int> statuses;
  for (auto& a : answers)
    statuses.push_back(a.get().status);
  std::sort(statuses.begin(), statuses.end());
  EXPECT_EQ(statuses, (std::vector<int>{200, 409}));
  auto users = call("GET", "/api/v1/users");
  ASSERT_EQ(users.status, 200) << users.body;
  int twins = 0;
  auto listed = json::parse(users.body);
  for (const auto& u : listed["users"])
    twins += u["username"] == "twin" ? 1 : 0;
  EXPECT_EQ(twins, 1) << users.body;
}

namespace det {
namespace {

/// The rows "| METHOD | `path` | ..." of the route table in docs/api.md.
std::set<std::pair<std::string, std::string>> documented_routes() {
  std::ifstream in(std::string(DET_SOURCE_DIR) + "/docs/api.md");
  EXPECT_TRUE(in.good()) << "docs/api.md not found";
  std::set<std::pair<std::string, std::string>> rows;
  std::regex row(R"(^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \|)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, row))
      rows.emplace(m[1], m[2]);
  return rows;
}

TEST_F(master_api_test, the_route_table_in_docs_api_md_lists_every_route) {
  auto documented = documented_routes();
  std::set<std::pair<std::string, std::string>> served;
  for (const auto& [method, pattern] : routes.table())
    served.emplace(method, pattern);
  ASSERT_GT(served.size(), 10u);
  for (const auto& r : served)
    EXPECT_TRUE(documented.count(r) != 0)
        << r.first << " " << r.second << " has no row in docs/api.md";
  for (const auto& r : documented)
    EXPECT_TRUE(served.count(r) != 0)
        << "docs/api.md lists " << r.first << " " << r.second
        << ", which the master does not serve";
}

} // namespace
} // namespace det
