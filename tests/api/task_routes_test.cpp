// Commands through their routes (api/task_routes.cpp): launched, listed,
// described, placed on an agent, killed; GET /api/v1/tasks/{id}; and every
// refusal: no session (401, each row of the family), ids that are no UUID
// (400), unknown ids (404), another user's command (403), bad bodies (400
// naming the field).

#include "api/task_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include "util/archive.hpp"
#include "util/base64.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

using namespace det;
using namespace det::test;

namespace {

struct task_routes : master_api_test {
  json launch(const json& body, int status = 200,
              std::optional<std::string> token = std::nullopt) {
    auto r = write("POST", "/api/v1/commands", body.dump(), std::move(token));
    EXPECT_EQ(r.status, status) << r.body;
    return json::parse(r.body);
  }
  /// The error text of a refused request, checked for `status`.
  std::string refused(const std::string& method, const std::string& path,
                      const json& body, int status,
                      std::optional<std::string> token = std::nullopt) {
    auto r =
        call(method, path, body.is_null() ? "" : body.dump(), std::move(token));
    EXPECT_EQ(r.status, status) << method << " " << path << ": " << r.body;
    return r.body;
  }
};

json echo_config() {
  return {{"config", {{"entrypoint", json::array({"echo hello"})}}}};
}

TEST_F(task_routes, a_command_is_launched_listed_described_and_killed) {
  auto launched = launch(echo_config());
  auto cmd = launched["command"];
  auto id = cmd["id"].get<std::string>();
  EXPECT_EQ(id.size(), 36u);
  EXPECT_EQ(cmd["state"], "STATE_QUEUED");
  EXPECT_EQ(cmd["username"], "admin");
  EXPECT_EQ(cmd["resourcePool"], "default");
  EXPECT_EQ(cmd["exitStatus"], "");
  EXPECT_EQ(cmd["workspaceId"], 1);
  EXPECT_EQ(cmd["description"].get<std::string>().rfind("Command (", 0), 0u);
  EXPECT_EQ(launched["config"]["entrypoint"], json::array({"echo hello"}));
  EXPECT_EQ(launched["config"]["resources"]["slots"], 1);
  EXPECT_EQ(launched["warnings"], json::array());

  auto list = get("/api/v1/commands?users=admin")["commands"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], id);
  EXPECT_EQ(get("/api/v1/commands?users=someone")["commands"].size(), 0u);
  EXPECT_EQ(get("/api/v1/commands/" + id)["command"]["id"], id);
  auto task = get("/api/v1/tasks/" + id)["task"];
  EXPECT_EQ(task["taskType"], "TASK_TYPE_COMMAND");
  EXPECT_EQ(task["allocations"][0]["state"], "STATE_QUEUED");
  EXPECT_EQ(task["allocations"][0]["isReady"], false);
  EXPECT_FALSE(task.contains("endTime"));

  auto killed = write("POST", "/api/v1/commands/" + id + "/kill");
  ASSERT_EQ(killed.status, 200) << killed.body;
  EXPECT_EQ(json::parse(killed.body)["command"]["state"], "STATE_TERMINATED");
  task = get("/api/v1/tasks/" + id)["task"];
  EXPECT_TRUE(task.contains("endTime"));
  // Killing it again is no error (upstream: a no-op).
  EXPECT_EQ(write("POST", "/api/v1/commands/" + id + "/kill").status, 200);
}

TEST_F(task_routes, a_command_is_placed_on_an_agent_and_listed_as_a_task) {
  connect_agent("a1", 1);
  auto id = launch(echo_config())["command"]["id"].get<std::string>();
  EXPECT_TRUE(await_read([id](const state::cluster_state& s) {
    auto t = s.tasks.find(id);
    return t != s.tasks.end() && t->second.state == state::task_state::starting;
  }));
  auto tasks = get("/api/v1/tasks")["allocationIdToSummary"];
  ASSERT_TRUE(tasks.contains(id + ".1")) << tasks.dump();
  EXPECT_EQ(tasks[id + ".1"]["taskId"], id);
  EXPECT_EQ(tasks[id + ".1"]["slotsNeeded"], 1);
  auto set = write("POST", "/api/v1/commands/" + id + "/set_priority",
                   json{{"priority", 5}}.dump());
  EXPECT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(
      get("/api/v1/tasks")["allocationIdToSummary"][id + ".1"]["priority"], 5);
  // Its service is a port of `det task list` once it answers.
  EXPECT_EQ(tasks[id + ".1"]["proxyPorts"], json::array());
  caf::anon_send(ctx->master, command{allocation_running_report{id + ".1"}});
  ASSERT_TRUE(await_read([id](const state::cluster_state& s) {
    return s.tasks.at(id).state == state::task_state::running;
  }));
  remote_address = "127.0.0.1"; // where its agent is
  ASSERT_EQ(write("POST", "/api/v1/allocations/" + id + ".1/ready",
                  json{{"proxyPort", 3000}}.dump(),
                  ctx->tokens->token_for(id + ".1"))
                .status,
            200);
  EXPECT_EQ(
      get("/api/v1/tasks")["allocationIdToSummary"][id + ".1"]["proxyPorts"],
      json::parse(R"([{"serviceId": ")" + id
                  + R"(", "port": 3000, "proxyTcp": false,
                           "unauthenticated": false}])"));
}

TEST_F(task_routes, bad_ids_unknown_tasks_and_other_users_are_refused) {
  auto body = refused("GET", "/api/v1/commands/not-a-uuid!", nullptr, 400);
  EXPECT_NE(body.find("commandId"), std::string::npos) << body;
  body = refused("GET", "/api/v1/tasks/ABC", nullptr, 400);
  EXPECT_NE(body.find("taskId"), std::string::npos) << body;
  const std::string unknown = "00000000-0000-4000-8000-000000000000";
  body = refused("GET", "/api/v1/commands/" + unknown, nullptr, 404);
  EXPECT_NE(body.find("command not found"), std::string::npos) << body;
  body = refused("POST", "/api/v1/commands/" + unknown + "/kill", nullptr, 404);
  body = refused("GET", "/api/v1/tasks/" + unknown, nullptr, 404);
  body = refused("GET", "/api/v1/tasks/" + unknown + "/logs", nullptr, 404);
  EXPECT_NE(body.find("task not found"), std::string::npos) << body;

  auto id = launch(echo_config())["command"]["id"].get<std::string>();
  auto mallory = plain_user_token("mallory");
  body = refused("POST", "/api/v1/commands/" + id + "/kill", nullptr, 403,
                 mallory);
  EXPECT_NE(body.find("owner or an admin"), std::string::npos) << body;
  refused("POST", "/api/v1/commands/" + id + "/set_priority",
          json{{"priority", 3}}, 403, mallory);
  EXPECT_EQ(get("/api/v1/commands/" + id)["command"]["state"], "STATE_QUEUED");
  // Mallory's own command is hers to kill.
  auto own = launch(echo_config(), 200, mallory)["command"];
  EXPECT_EQ(own["username"], "mallory");
  EXPECT_EQ(call("POST",
                 "/api/v1/commands/" + own["id"].get<std::string>() + "/kill",
                 "", mallory)
                .status,
            200);
}

TEST_F(task_routes, the_count_is_of_tasks_not_yet_terminated_by_kind) {
  EXPECT_EQ(get("/api/v1/tasks/count"), (json{{"commands", 0},
                                              {"notebooks", 0},
                                              {"shells", 0},
                                              {"tensorboards", 0}}));
  auto first = launch(echo_config())["command"]["id"].get<std::string>();
  launch(echo_config(), 200, plain_user_token("mallory"));
  EXPECT_EQ(get("/api/v1/tasks/count")["commands"], 2);
  ASSERT_EQ(write("POST", "/api/v1/commands/" + first + "/kill").status, 200);
  auto after = get("/api/v1/tasks/count");
  EXPECT_EQ(after["commands"], 1) << after.dump();
  EXPECT_EQ(after["notebooks"], 0);
}

TEST_F(task_routes, a_trials_allocation_token_reaches_no_task) {
  auto id = launch(echo_config())["command"]["id"].get<std::string>();
  run_trial_1();
  auto trial = ctx->tokens->token_for("1.1");
  for (auto path : {"/api/v1/tasks/" + id, "/api/v1/tasks/" + id + "/logs",
                    "/api/v1/commands/" + id}) {
    auto body = refused("GET", path, nullptr, 403, trial);
    EXPECT_NE(body.find("allocation token"), std::string::npos) << body;
  }
  refused("POST", "/api/v1/commands", echo_config(), 403, trial);
}

TEST_F(task_routes, a_tasks_user_token_is_its_owner_until_the_task_ends) {
  auto mallory = plain_user_token("mallory");
  connect_agent("a1", 1);
  auto id = launch(echo_config(), 200, mallory)["command"]["id"];
  auto alloc = id.get<std::string>() + ".1";
  // Queued, it holds no allocation, and the token is no token yet.
  ASSERT_TRUE(await_read([id](const state::cluster_state& s) {
    auto t = s.tasks.find(id.get<std::string>());
    return t != s.tasks.end() && state::holds_allocation(t->second);
  }));
  auto user = ctx->tokens->user_token_for(alloc);
  auto own = ctx->tokens->token_for(alloc);
  EXPECT_NE(user, own);
  // The owner's rights, beyond the allocation token's scope (the cluster's
  // agents), and no more than the owner's (no admin route).
  auto me = call("GET", "/api/v1/me", "", user);
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(json::parse(me.body)["user"]["username"], "mallory");
  EXPECT_EQ(call("GET", "/api/v1/agents", "", user).status, 200);
  refused("GET", "/api/v1/agents", nullptr, 403, own);
  refused("POST", "/api/v1/users",
          json{{"user", {{"username", "eve"}, {"admin", true}}}}, 403, user);
  // Another task's, or a trial's, user token is no token.
  refused(
      "GET", "/api/v1/me", nullptr, 401,
      ctx->tokens->user_token_for("00000000-0000-4000-8000-000000000000.1"));
  ASSERT_EQ(call("POST", "/api/v1/commands/" + id.get<std::string>() + "/kill",
                 "", user)
                .status,
            200);
  // Asked to stop, it lives until its process exits; then it is no token.
  EXPECT_EQ(call("GET", "/api/v1/me", "", user).status, 200);
  caf::anon_send(ctx->master,
                 command{allocation_exit_report{alloc, int32_t{137}}});
  ASSERT_TRUE(await_read([id](const state::cluster_state& s) {
    return s.tasks.at(id.get<std::string>()).state
           == state::task_state::terminated;
  }));
  refused("GET", "/api/v1/me", nullptr, 401, user);
}

TEST_F(task_routes, a_template_goes_under_the_tasks_config_keys_it_knows) {
  json tpl{{"description", "from the template"},
           {"resources", {{"priority", 7}, {"slots", 100}}},
           {"environment", {{"environment_variables", {"A=1"}}}},
           {"searcher", {{"name", "single"}}}};
  auto made =
      write("POST", "/api/v1/templates/gpu", json{{"config", tpl}}.dump());
  ASSERT_EQ(made.status, 200) << made.body;
  auto launched =
      launch({{"config", {{"description", "mine"}}}, {"template_name", "gpu"}});
  auto cfg = launched["config"];
  EXPECT_EQ(cfg["description"], "mine"); // the request's own wins
  EXPECT_EQ(cfg["resources"]["priority"], 7);
  EXPECT_EQ(cfg["resources"]["slots"], 1); // never the template's
  EXPECT_EQ(cfg["environment"]["environment_variables"], json::array({"A=1"}));
  EXPECT_FALSE(cfg.contains("searcher")) << cfg.dump();
  // The request's own unknown keys are still refused.
  auto body =
      refused("POST", "/api/v1/commands",
              {{"config", {{"searcher", 1}}}, {"template_name", "gpu"}}, 400);
  EXPECT_NE(body.find("'searcher'"), std::string::npos) << body;
}

TEST_F(task_routes, bad_launch_bodies_are_refused_naming_the_field) {
  struct bad_case {
    json body;
    int status;
    std::string names;
  };
  std::vector<bad_case> cases{
      {{{"config", "echo hi"}}, 400, "config: expected an object"},
      {{{"config", {{"entrypoint", 7}}}}, 400, "config.entrypoint"},
      {{{"config", {{"entrypoint", json::array({1, 2})}}}},
       400,
       "config.entrypoint"},
      {{{"config", {{"colour", "red"}}}}, 400, "unknown field 'colour'"},
      {{{"config", {{"resources", {{"slots", -1}}}}}},
       400,
       "config.resources.slots"},
      {{{"config", {{"resources", {{"slots", 99999999}}}}}},
       400,
       "config.resources.slots"},
      {{{"config", {{"resources", {{"priority", 100}}}}}},
       400,
       "config.resources.priority"},
      {{{"config", {{"resources", {{"resource_pool", "nowhere"}}}}}},
       400,
       "resources.resource_pool"},
      {{{"config", {{"description", json::array()}}}},
       400,
       "config.description"},
      {{{"config", json::object()}, {"workspaceId", 0}}, 400, "workspaceId"},
      {{{"config", json::object()}, {"workspaceId", 99}},
       404,
       "workspace not found"},
      {{{"config", json::object()}, {"files", "hello.py"}},
       400,
       "files: must be a list of files"},
      // What an experiment's model definition refuses, a context refuses:
      // a link, "." as a name, a path no file system holds, and a file
      // written through a link (an entry under a file's path).
      {{{"config", json::object()},
        {"files", json::array({{{"path", "up"}, {"type", 50}}})}},
       400,
       "files[0].type"},
      {{{"config", json::object()},
        {"files", json::array({{{"path", "a/./b"}, {"type", 48}}})}},
       400,
       "files[0].path: must not contain '.'"},
      {{{"config", json::object()},
        {"files", json::array({{{"path", std::string(4000, 'p')}}})}},
       400,
       "files[0].path"},
      {{{"config", json::object()},
        {"files", json::array({{{"path", "out"}, {"type", 48}},
                               {{"path", "out/evil.sh"}, {"type", 48}}})}},
       400,
       "files[1].path: 'out' is a file (files[0])"},
      {{{"config", json::object()}, {"template_name", "t"}},
       404,
       "template_name: 't' not found"},
      {{{"config", json::object()}, {"templateName", 7}},
       400,
       "templateName: expected a template's name"},
      {{{"config", json::object()}, {"sneaky", true}}, 400, "'sneaky'"},
  };
  for (const auto& c : cases) {
    auto body = refused("POST", "/api/v1/commands", c.body, c.status);
    EXPECT_NE(body.find(c.names), std::string::npos)
        << c.body.dump() << " -> " << body;
  }
  auto body = refused(
      "POST", "/api/v1/commands/" + std::string(36, 'a') + "/set_priority",
      json{{"priority", 0}}, 400);
  EXPECT_NE(body.find("priority"), std::string::npos) << body;
  EXPECT_EQ(get("/api/v1/commands")["commands"].size(), 0u);
}

TEST_F(task_routes, a_context_is_kept_for_the_task_its_owner_and_no_one_else) {
  auto content = base64_encode("print('hello')\n");
  json files = json::array({{{"path", "sub"}, {"type", 53}},
                            {{"path", "sub/hello.py"},
                             {"type", 48},
                             {"content", content},
                             {"mode", 0644}}});
  auto mallory = plain_user_token("mallory");
  auto id = launch({{"config", echo_config()["config"]}, {"files", files}}, 200,
                   mallory)["command"]["id"]
                .get<std::string>();
  auto path = "/api/v1/tasks/" + id + "/context_directory";
  auto got = call("GET", path, "", mallory);
  ASSERT_EQ(got.status, 200) << got.body;
  auto tgz = base64_decode(json::parse(got.body)["b64Tgz"].get<std::string>());
  ASSERT_TRUE(tgz && !tgz->empty());
  auto dir = std::filesystem::temp_directory_path()
             / ("ctx-" + id.substr(0, 8) + std::to_string(::getpid()));
  ASSERT_EQ(util::unpack_tgz(*tgz, dir.string()), "");
  std::ifstream in{dir / "sub" / "hello.py"};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  EXPECT_EQ(text, "print('hello')\n");
  std::filesystem::remove_all(dir);
  // The admin may read it; another user, or another task's allocation,
  // finds no such task.
  EXPECT_EQ(call("GET", path).status, 200);
  refused("GET", path, nullptr, 404, plain_user_token("eve"));
  auto other = launch(echo_config())["command"]["id"].get<std::string>();
  connect_agent("a1", 2);
  ASSERT_TRUE(await_read([other](const state::cluster_state& s) {
    return state::holds_allocation(s.tasks.at(other));
  }));
  refused("GET", path, nullptr, 404, ctx->tokens->token_for(other + ".1"));
  // A task launched without one gets an empty archive, with its own token.
  auto none = call("GET", "/api/v1/tasks/" + other + "/context_directory", "",
                   ctx->tokens->token_for(other + ".1"));
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(json::parse(none.body)["b64Tgz"], "");
}

TEST_F(task_routes, a_deleted_workspaces_tasks_are_killed_and_listed_no_more) {
  auto made =
      write("POST", "/api/v1/workspaces", json{{"name", "scratch"}}.dump());
  ASSERT_EQ(made.status, 200) << made.body;
  auto ws = json::parse(made.body)["workspace"]["id"].get<int64_t>();
  auto inside = launch({{"config", json::object()}, {"workspaceId", ws}});
  auto outside = launch(echo_config());
  auto path = "/api/v1/commands?workspaceId=" + std::to_string(ws);
  EXPECT_EQ(get(path)["commands"].size(), 1u);
  auto del = write("DELETE", "/api/v1/workspaces/" + std::to_string(ws));
  ASSERT_EQ(del.status, 200) << del.body;
  ASSERT_TRUE(
      await_read([id = inside["command"]["id"]](const state::cluster_state& s) {
        auto t = s.tasks.find(id.get<std::string>());
        return t != s.tasks.end()
               && t->second.state == state::task_state::terminated;
      }));
  auto listed = get("/api/v1/commands")["commands"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["id"], outside["command"]["id"]);
  auto gone = refused("GET", path, nullptr, 404);
  EXPECT_NE(gone.find("workspace not found"), std::string::npos) << gone;
}

TEST_F(task_routes, more_slots_than_one_agent_can_have_is_unfulfillable) {
  ctx->pool_capacities["default"] = {"default", 4, 8};
  auto body = refused("POST", "/api/v1/commands",
                      {{"config", {{"resources", {{"slots", 10485}}}}}}, 400);
  EXPECT_NE(body.find("config.resources.slots: request unfulfillable, please "
                      "try requesting less slots"),
            std::string::npos)
      << body;
  // Eight fit on the largest agent (none is up: it waits for one).
  launch({{"config", {{"resources", {{"slots", 8}}}}}});
}

TEST_F(task_routes, a_context_over_the_limit_is_refused_naming_files) {
  auto small = std::make_shared<conf::master_config>(*ctx->config);
  small->max_model_definition_bytes = 30;
  ctx->config = small;
  json files =
      json::array({{{"path", "big.bin"},
                    {"content", base64_encode(std::string(64, 'x'))}}});
  auto body = refused("POST", "/api/v1/commands",
                      {{"config", json::object()}, {"files", files}}, 400);
  EXPECT_NE(body.find("files: the files are about 66 bytes, over the limit "
                      "of 30 bytes"),
            std::string::npos)
      << body;
  EXPECT_EQ(get("/api/v1/commands")["commands"].size(), 0u);
}

// Tasks wait in the job queue beside experiments, in the scheduler's
// order (priority, then launch), with their type and why they wait; their
// priority changes through POST /api/v1/job-queues as through their own
// set_priority: their owner or an admin, 1..99, never their weight.
TEST_F(task_routes, tasks_are_jobs_in_the_queue_and_their_priority_moves_them) {
  auto with_priority = [](int p) {
    auto b = echo_config();
    b["config"]["resources"] = {{"priority", p}};
    return b;
  };
  auto later = launch(with_priority(50))["command"]["id"].get<std::string>();
  auto first = launch(with_priority(10))["command"]["id"].get<std::string>();
  auto queue = [this] { return get("/api/v1/job-queues")["jobs"]; };
  auto jobs = queue();
  ASSERT_EQ(jobs.size(), 2u) << jobs.dump();
  EXPECT_EQ(jobs[0]["jobId"], first);
  EXPECT_EQ(jobs[0]["type"], "TYPE_COMMAND");
  EXPECT_EQ(jobs[0]["summary"]["state"], "STATE_QUEUED");
  EXPECT_EQ(jobs[0]["summary"]["jobsAhead"], 0);
  EXPECT_EQ(jobs[0]["requestedSlots"], 1);
  EXPECT_EQ(jobs[0]["isPreemptible"], false);
  EXPECT_NE(jobs[0]["waitReason"].get<std::string>().find("waits for 1 slot"),
            std::string::npos)
      << jobs[0].dump();
  EXPECT_EQ(jobs[1]["jobId"], later);
  EXPECT_EQ(jobs[1]["summary"]["jobsAhead"], 1);

  auto update = [](const std::string& id, const json& fields) {
    json u = fields;
    u["jobId"] = id;
    return json{{"updates", {u}}};
  };
  auto mallory = plain_user_token("mallory");
  refused("POST", "/api/v1/job-queues", update(later, {{"priority", 1}}), 403,
          mallory);
  EXPECT_NE(
      refused("POST", "/api/v1/job-queues", update(later, {{"weight", 2}}), 400)
          .find("weight: a task's weight does not change"),
      std::string::npos);
  EXPECT_NE(refused("POST", "/api/v1/job-queues",
                    update(later, {{"priority", 100}}), 400)
                .find("priority: expected a whole number from 1 to 99"),
            std::string::npos);
  refused("POST", "/api/v1/job-queues",
          update("00000000-0000-4000-8000-00000000abcd", {{"priority", 5}}),
          404);
  auto moved = write("POST", "/api/v1/job-queues",
                     update(later, {{"priority", 5}}).dump());
  ASSERT_EQ(moved.status, 200) << moved.body;
  jobs = queue();
  EXPECT_EQ(jobs[0]["jobId"], later);
  EXPECT_EQ(jobs[0]["priority"], 5);

  // Placed: scheduled, holding its slot; ended: out of the queue.
  connect_agent("a1", 1);
  ASSERT_TRUE(await_read([later](const state::cluster_state& s) {
    return state::holds_allocation(s.tasks.at(later));
  }));
  jobs = queue();
  EXPECT_EQ(jobs[0]["summary"]["state"], "STATE_SCHEDULED");
  EXPECT_EQ(jobs[0]["allocatedSlots"], 1);
  ASSERT_EQ(write("POST", "/api/v1/commands/" + first + "/kill").status, 200);
  jobs = queue();
  ASSERT_EQ(jobs.size(), 1u) << jobs.dump();
  EXPECT_EQ(jobs[0]["jobId"], later);
}

TEST_F(task_routes, every_row_refuses_no_session_and_a_bad_id_by_name) {
  const auto& family = api::task_routes();
  expect_401_without_a_session(family);
  // A task id is lower-case hex and dashes, at most 64 of them.
  const std::vector<std::string> bad{"x1", "ABC", std::string(65, 'a')};
  for (const auto& [param, field, rows] :
       std::vector<std::tuple<std::string, std::string, size_t>>{
           {"command_id", "commandId", 3},
           {"notebook_id", "notebookId", 4},
           {"shell_id", "shellId", 3},
           {"tensorboard_id", "tensorboardId", 3}})
    EXPECT_EQ(expect_400_for_a_bad(family, param,
                                   field + ": expected a task id (a UUID)", {},
                                   bad),
              rows)
        << param;
  // A trial's task id is no UUID: these rows look for one first (logs:
  // 404; fields: empty lists; the context: 400 naming task_id, below).
  EXPECT_EQ(expect_400_for_a_bad(
                family, "task_id", "taskId: expected a task id (a UUID)",
                {{"GET", "/api/v1/tasks/{task_id}/context_directory"},
                 {"GET", "/api/v1/tasks/{task_id}/logs"},
                 {"GET", "/api/v1/tasks/{task_id}/logs/fields"}},
                bad),
            5u);
  EXPECT_EQ(expect_400_for_a_bad(
                family, "task_id", "task_id: not a task id of this master",
                {{"GET", "/api/v1/tasks/{task_id}"},
                 {"GET", "/api/v1/tasks/{task_id}/config"},
                 {"GET", "/api/v1/tasks/{task_id}/logs"},
                 {"GET", "/api/v1/tasks/{task_id}/logs/fields"},
                 {"POST", "/api/v1/tasks/{task_id}/kill"},
                 {"POST", "/api/v1/tasks/{task_id}/pause"},
                 {"POST", "/api/v1/tasks/{task_id}/unpause"}},
                bad),
            1u);
  auto ready = refused("POST", "/api/v1/allocations/x1/ready", nullptr, 400);
  EXPECT_NE(ready.find("allocationId"), std::string::npos) << ready;
}

TEST_F(task_routes, another_users_task_and_a_users_session_on_signals_are_403) {
  auto id = launch(echo_config())["command"]["id"].get<std::string>();
  auto mallory = plain_user_token("mallory");
  for (const char* op : {"kill", "pause", "unpause"}) {
    auto body = refused("POST", "/api/v1/tasks/" + id + "/" + op, nullptr, 403,
                        mallory);
    EXPECT_NE(body.find("owner or an admin"), std::string::npos) << body;
  }
  // A preemption signal is its allocation's own: not even an admin's.
  refused("GET", "/api/v1/allocations/" + id + ".1/signals/preemption", nullptr,
          403);
  refused("POST", "/api/v1/allocations/" + id + ".1/signals/ack_preemption",
          nullptr, 403);
  EXPECT_EQ(get("/api/v1/commands/" + id)["command"]["state"], "STATE_QUEUED");
}

} // namespace
