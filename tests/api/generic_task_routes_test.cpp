// Generic tasks through their routes (api/api_generic_tasks.cpp): created
// from YAML text, their config as submitted, upstream's GenericTaskState
// as they run and end, pause (the allocation ends, the task waits) and
// unpause (queued for its next allocation), kill of a paused task, forks
// (config and context from the parent), and every refusal naming the
// field.

#include "tests/api/route_fixture.hpp"

#include "util/base64.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

struct generic_tasks : master_api_test {
  std::string create(const json& body, int status = 200,
                     std::optional<std::string> token = std::nullopt) {
    auto r =
        write("POST", "/api/v1/generic-tasks", body.dump(), std::move(token));
    EXPECT_EQ(r.status, status) << body.dump() << " -> " << r.body;
    if (status != 200)
      return r.body;
    auto j = json::parse(r.body);
    EXPECT_EQ(j["warnings"], json::array());
    return j["taskId"].get<std::string>();
  }
  json task(const std::string& id) {
    auto r = call("GET", "/api/v1/tasks/" + id);
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["task"];
  }
  std::string state_of(const std::string& id) {
    return task(id).value("taskState", "");
  }
  /// Waits until the task holds allocation `alloc`, then reports it
  /// running as its agent would.
  void run(const std::string& id, const std::string& alloc) {
    ASSERT_TRUE(await_read([id, alloc](const state::cluster_state& s) {
      auto t = s.tasks.find(id);
      return t != s.tasks.end() && t->second.allocation_id == alloc
             && state::holds_allocation(t->second);
    })) << id
        << " never held " << alloc;
    caf::anon_send(ctx->master, command{allocation_running_report{alloc}});
  }
  void exit(const std::string& alloc, int32_t code) {
    caf::anon_send(ctx->master, command{allocation_exit_report{alloc, code}});
  }
  bool await_state(const std::string& id, state::task_state want) {
    return await_read([id, want](const state::cluster_state& s) {
      auto t = s.tasks.find(id);
      return t != s.tasks.end() && t->second.state == want;
    });
  }
  int post_action(const std::string& id, const std::string& op,
                  std::optional<std::string> token = std::nullopt) {
    return write("POST", "/api/v1/tasks/" + id + "/" + op, "{}",
                 std::move(token))
        .status;
  }
};

const char* echo_yaml = "entrypoint: [\"echo\", \"task ran\"]\n";

TEST_F(generic_tasks, one_runs_to_completed_and_its_config_is_as_submitted) {
  connect_agent("a1", 2);
  auto ok =
      create({{"config", echo_yaml}, {"contextDirectory", json::array()}});
  auto bad = create({{"config", "entrypoint: [\"exit\", \"1\"]\n"}});
  EXPECT_EQ(state_of(ok), "GENERIC_TASK_STATE_ACTIVE");
  auto t = task(ok);
  EXPECT_EQ(t["taskType"], "TASK_TYPE_GENERIC");
  auto cfg = call("GET", "/api/v1/tasks/" + ok + "/config");
  ASSERT_EQ(cfg.status, 200) << cfg.body;
  EXPECT_EQ(json::parse(json::parse(cfg.body)["config"].get<std::string>()),
            (json{{"entrypoint", {"echo", "task ran"}}}));
  run(ok, ok + ".1");
  run(bad, bad + ".1");
  exit(ok + ".1", 0);
  exit(bad + ".1", 1);
  ASSERT_TRUE(await_state(ok, state::task_state::terminated));
  ASSERT_TRUE(await_state(bad, state::task_state::terminated));
  EXPECT_EQ(state_of(ok), "GENERIC_TASK_STATE_COMPLETED");
  EXPECT_EQ(state_of(bad), "GENERIC_TASK_STATE_ERROR");
  EXPECT_TRUE(task(ok).contains("endTime"));
}

TEST_F(generic_tasks,
       a_paused_task_waits_and_unpaused_runs_its_next_allocation) {
  connect_agent("a1", 1);
  auto id = create({{"config", "entrypoint: [\"sleep\", \"5\"]\n"}});
  run(id, id + ".1");
  ASSERT_EQ(post_action(id, "pause"), 200);
  EXPECT_EQ(state_of(id), "GENERIC_TASK_STATE_STOPPING_PAUSED");
  // Pausing again while it stops changes nothing; unpausing is refused.
  EXPECT_EQ(post_action(id, "pause"), 200);
  EXPECT_EQ(post_action(id, "unpause"), 400);
  exit(id + ".1", 137);
  ASSERT_TRUE(await_state(id, state::task_state::terminated));
  EXPECT_EQ(state_of(id), "GENERIC_TASK_STATE_PAUSED");
  EXPECT_FALSE(task(id).contains("endTime")) << task(id).dump();
  // Its slot is free: another task takes it meanwhile.
  auto other = create({{"config", echo_yaml}});
  run(other, other + ".1");
  exit(other + ".1", 0);
  auto unpaused = write("POST", "/api/v1/tasks/" + id + "/unpause", "{}");
  ASSERT_EQ(unpaused.status, 200) << unpaused.body;
  EXPECT_EQ(state_of(id), "GENERIC_TASK_STATE_ACTIVE");
  run(id, id + ".2");
  exit(id + ".2", 0);
  ASSERT_TRUE(await_state(id, state::task_state::terminated));
  EXPECT_EQ(state_of(id), "GENERIC_TASK_STATE_COMPLETED");
  EXPECT_EQ(task(id)["allocations"][0]["allocationId"], id + ".2");
}

TEST_F(generic_tasks, killing_a_queued_running_or_paused_task_cancels_it) {
  auto queued = create({{"config", echo_yaml}}); // no agent: stays queued
  ASSERT_EQ(post_action(queued, "kill"), 200);
  EXPECT_EQ(state_of(queued), "GENERIC_TASK_STATE_CANCELED");
  auto paused = create({{"config", echo_yaml}});
  ASSERT_EQ(post_action(paused, "pause"), 200); // paused while queued
  EXPECT_EQ(state_of(paused), "GENERIC_TASK_STATE_PAUSED");
  ASSERT_EQ(post_action(paused, "kill"), 200);
  EXPECT_EQ(state_of(paused), "GENERIC_TASK_STATE_CANCELED");
  connect_agent("a1", 1);
  auto running = create({{"config", echo_yaml}});
  run(running, running + ".1");
  ASSERT_EQ(post_action(running, "kill"), 200);
  EXPECT_EQ(state_of(running), "GENERIC_TASK_STATE_STOPPING_CANCELED");
  exit(running + ".1", 137);
  ASSERT_TRUE(await_state(running, state::task_state::terminated));
  EXPECT_EQ(state_of(running), "GENERIC_TASK_STATE_CANCELED");
  // Only a generic task pauses.
  auto cmd = write("POST", "/api/v1/commands",
                   json{{"config", {{"entrypoint", "sleep 60"}}}}.dump());
  ASSERT_EQ(cmd.status, 200) << cmd.body;
  auto cid = json::parse(cmd.body)["command"]["id"].get<std::string>();
  auto r = write("POST", "/api/v1/tasks/" + cid + "/pause", "{}");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("only a generic task pauses"), std::string::npos)
      << r.body;
}

TEST_F(generic_tasks, a_fork_takes_its_parents_config_and_context) {
  json files = json::array({{{"path", "data.txt"},
                             {"type", 48},
                             {"content", base64_encode("from the parent")}}});
  auto parent =
      create({{"config", "entrypoint: [\"echo\", \"parent\"]\n"
                         "environment:\n  environment_variables: [A=1]\n"},
              {"contextDirectory", files}});
  auto fork = create({{"config", "entrypoint: [\"echo\", \"forked\"]\n"},
                      {"forkedFrom", parent}});
  auto cfg = json::parse(
      json::parse(
          call("GET", "/api/v1/tasks/" + fork + "/config").body)["config"]
          .get<std::string>());
  EXPECT_EQ(cfg["entrypoint"], json::array({"echo", "forked"}));
  EXPECT_EQ(cfg["environment"]["environment_variables"], json::array({"A=1"}));
  EXPECT_EQ(task(fork)["forkedFrom"], parent);
  // `det task fork`: no config at all.
  auto bare = create({{"config", ""}, {"forkedFrom", parent}});
  for (const auto& id : {fork, bare}) {
    auto got = call("GET", "/api/v1/tasks/" + id + "/context_directory");
    ASSERT_EQ(got.status, 200) << got.body;
    EXPECT_EQ(json::parse(got.body)["b64Tgz"],
              json::parse(
                  call("GET", "/api/v1/tasks/" + parent + "/context_directory")
                      .body)["b64Tgz"]);
  }
}

TEST_F(generic_tasks, bad_requests_are_refused_naming_the_field) {
  struct bad_case {
    json body;
    int status;
    std::string names;
  };
  std::vector<bad_case> cases{
      {{{"config", 7}}, 400, "config: expected the configuration as a YAML"},
      {{{"config", "entrypoint: [unclosed"}}, 400, "config: not valid yaml"},
      {{{"config", "- a list\n"}}, 400, "config: expected a mapping"},
      {{{"config", ""}}, 400, "config: required"},
      {{{"config", "colour: red\n"}}, 400, "unknown field 'colour'"},
      {{{"config", echo_yaml}, {"sneaky", 1}}, 400, "'sneaky'"},
      {{{"config", echo_yaml}, {"forkedFrom", "../x"}}, 400, "forkedFrom"},
      {{{"config", echo_yaml}, {"projectId", 0}}, 400, "projectId"},
      {{{"config", echo_yaml}, {"noPause", "yes"}}, 400, "noPause"},
      {{{"config", echo_yaml}, {"inheritContext", true}},
       400,
       "inheritContext: there is no parentId"},
      {{{"config", echo_yaml}, {"parentId", "x/y"}}, 400, "parentId"},
      {{{"config", echo_yaml},
        {"parentId", "00000000-0000-4000-8000-000000000000"}},
       404,
       "parentId: task not found"},
      {{{"config", echo_yaml},
        {"contextDirectory", json::array({{{"path", "."}}})}},
       400,
       "contextDirectory[0].path"},
      {{{"config", echo_yaml},
        {"forkedFrom", "00000000-0000-4000-8000-000000000000"}},
       404,
       "task not found"},
      {{{"config", echo_yaml}, {"projectId", 99}},
       404,
       "project not found: 99"},
  };
  for (const auto& c : cases) {
    auto body = create(c.body, c.status);
    EXPECT_NE(body.find(c.names), std::string::npos)
        << c.body.dump() << " -> " << body;
  }
  // Another user may neither fork, kill, nor pause someone else's task.
  auto mine = create({{"config", echo_yaml}});
  auto eve = plain_user_token("eve");
  create({{"config", echo_yaml}, {"forkedFrom", mine}}, 404, eve);
  create({{"config", echo_yaml}, {"parentId", mine}}, 404, eve);
  EXPECT_EQ(post_action(mine, "kill", eve), 403);
  EXPECT_EQ(post_action(mine, "pause", eve), 403);
  EXPECT_EQ(state_of(mine), "GENERIC_TASK_STATE_ACTIVE");
  EXPECT_EQ(post_action("not-a-uuid!", "kill"), 400);
  EXPECT_EQ(post_action("00000000-0000-4000-8000-000000000000", "kill"), 404);
}

// A tree of tasks (parentId): killing a task kills those under it, and
// killFromRoot the whole tree; pausing one pauses the children that said
// noPause: false (one that said nothing keeps running, as upstream), and
// unpausing resumes them; noPause: true refuses the task's own pause; an
// inherited context is the parent's.
TEST_F(generic_tasks, children_die_with_their_parent_and_pause_as_they_asked) {
  connect_agent("a1", 8);
  json files = json::array({{{"path", "p.txt"},
                             {"type", 48},
                             {"content", base64_encode("the parent's")}}});
  auto sleeper = "entrypoint: [\"sleep\", \"60\"]\n";
  auto root = create({{"config", sleeper}, {"contextDirectory", files}});
  auto follows = create({{"config", sleeper},
                         {"parentId", root},
                         {"noPause", false},
                         {"inheritContext", true}});
  auto stays = create({{"config", sleeper}, {"parentId", follows}});
  auto fixed =
      create({{"config", sleeper}, {"parentId", root}, {"noPause", true}});
  EXPECT_EQ(task(follows)["parentId"], root);
  EXPECT_EQ(task(fixed)["noPause"], true);
  EXPECT_EQ(task(root).value("parentId", ""), "");
  auto context_of = [this](const std::string& id) {
    auto got = call("GET", "/api/v1/tasks/" + id + "/context_directory");
    EXPECT_EQ(got.status, 200) << got.body;
    return json::parse(got.body).value("b64Tgz", "");
  };
  EXPECT_EQ(context_of(follows), context_of(root));
  for (const auto& id : {root, follows, stays, fixed})
    run(id, id + ".1");

  // Its own pause refused; the root's pauses it and `follows`, not the
  // others.
  auto refused = write("POST", "/api/v1/tasks/" + fixed + "/pause", "{}");
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("noPause"), std::string::npos) << refused.body;
  ASSERT_EQ(post_action(root, "pause"), 200);
  for (const auto& id : {root, follows})
    EXPECT_EQ(state_of(id), "GENERIC_TASK_STATE_STOPPING_PAUSED") << id;
  for (const auto& id : {stays, fixed})
    EXPECT_EQ(state_of(id), "GENERIC_TASK_STATE_ACTIVE") << id;
  exit(root + ".1", 137);
  exit(follows + ".1", 137);
  ASSERT_TRUE(await_state(follows, state::task_state::terminated));
  ASSERT_EQ(post_action(root, "unpause"), 200);
  for (const auto& id : {root, follows})
    run(id, id + ".2");

  // Killing `follows` kills `stays` under it, not its parent or sibling.
  ASSERT_EQ(post_action(follows, "kill"), 200);
  for (const auto& id : {follows, stays})
    EXPECT_EQ(state_of(id), "GENERIC_TASK_STATE_STOPPING_CANCELED") << id;
  for (const auto& id : {root, fixed})
    EXPECT_EQ(state_of(id), "GENERIC_TASK_STATE_ACTIVE") << id;
  // From the root: the whole tree.
  auto bad = write("POST", "/api/v1/tasks/" + fixed + "/kill",
                   R"({"killFromRoot": "yes"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("killFromRoot"), std::string::npos) << bad.body;
  ASSERT_EQ(write("POST", "/api/v1/tasks/" + fixed + "/kill",
                  R"({"killFromRoot": true})")
                .status,
            200);
  EXPECT_EQ(state_of(root), "GENERIC_TASK_STATE_STOPPING_CANCELED");
  EXPECT_EQ(state_of(fixed), "GENERIC_TASK_STATE_STOPPING_CANCELED");
}

} // namespace
