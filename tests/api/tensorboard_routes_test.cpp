// TensorBoards through their routes (api/api_tasks.cpp,
// api/tensorboard_launch.cpp): the experiments and trials a launch names
// are resolved into the task's storage and ids (shown as experimentIds and
// trialIds, handed to the agent as DET_TENSORBOARD), a TensorBoard holds no
// slot, and a launch naming what does not exist, mixing storages or
// setting where TensorBoard listens is refused naming why.

#include "api/task_views.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

struct tensorboards : master_api_test {
  int64_t experiment(const std::string& storage) {
    auto cfg = std::string{good_config} + "checkpoint_storage:\n" + storage;
    auto r = call("POST", "/api/v1/experiments", create_body(cfg));
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["experiment"]["id"].get<int64_t>();
  }
  /// The start frame det-agent gets for TensorBoard `id` once it holds an
  /// allocation.
  json start_frame(const std::string& id) {
    state::task_info t;
    EXPECT_TRUE(await_read([id, &t](const state::cluster_state& s) {
      auto i = s.tasks.find(id);
      if (i == s.tasks.end() || !state::holds_allocation(i->second))
        return false;
      t = i->second;
      return true;
    }));
    EXPECT_TRUE(t.agent_slots.empty()); // it takes no slot
    task_start_order o;
    o.task_id = id;
    o.allocation_id = id + ".1";
    o.task_type = "TENSORBOARD";
    o.tensorboard = t.tensorboard;
    return api::task_start_frame(o, "cpu", {"", "", "c", "uuid-1"}, {});
  }
  static json spec_in(const json& frame) {
    return json::parse(frame["env"]["DET_TENSORBOARD"].get<std::string>());
  }
};

const char* shared = "  type: shared_fs\n  host_path: /tmp/tb-a\n";

TEST_F(tensorboards, a_launch_resolves_its_experiments_and_trials) {
  auto a = experiment(shared);
  connect_agent("a1", 1);
  ASSERT_TRUE(await_read([](const state::cluster_state& s) {
    return s.allocations.count("1.1") != 0;
  }));
  auto r = write("POST", "/api/v1/tensorboards",
                 json{{"experimentIds", {a}}, {"trialIds", {1}}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  auto tb = json::parse(r.body)["tensorboard"];
  auto id = tb["id"].get<std::string>();
  EXPECT_EQ(tb["experimentIds"], json::array({a}));
  EXPECT_EQ(tb["trialIds"], json::array({1}));
  EXPECT_EQ(tb["serviceAddress"], "/proxy/" + id + "/");
  EXPECT_EQ(json::parse(r.body)["config"]["resources"]["slots"], 0);
  // What the agent is told: the storage and which experiment each trial
  // is of; no slot of the agent's is taken.
  auto frame = start_frame(id);
  auto spec = spec_in(frame);
  EXPECT_EQ(spec["storage"]["host_path"], "/tmp/tb-a");
  EXPECT_EQ(spec["experiments"], json::array({a}));
  EXPECT_EQ(spec["trials"], json::array({json::array({a, 1})}));
  EXPECT_EQ(frame["env"]["DET_CLUSTER_UUID"], "uuid-1");
  auto listed = json::parse(call("GET", "/api/v1/tensorboards").body);
  EXPECT_EQ(listed["tensorboards"].size(), 1u);
}

// A TensorBoard runs its launcher's code (a context's startup-hook.sh can
// print its environment), so the storage keys of an experiment reach only a
// TensorBoard launched by the experiment's owner or an admin. Another user's
// TensorBoard over the same experiment gets the storage without them and
// reads the files with the agent's own credentials.
TEST_F(tensorboards,
       storage_keys_reach_only_the_owners_or_an_admins_start_frame) {
  auto eve = plain_user_token("eve");
  auto mallory = plain_user_token("mallory");
  auto cfg = std::string{good_config}
             + "checkpoint_storage:\n  type: s3\n  bucket: tb-bucket\n"
               "  access_key: AKIAOWNERSKEY\n"
               "  secret_key: s3cr3t-of-the-owner\n";
  auto made = write("POST", "/api/v1/experiments", create_body(cfg), eve);
  ASSERT_EQ(made.status, 200) << made.body;
  auto spec_of = [this](std::optional<std::string> token) {
    auto r =
        write("POST", "/api/v1/tensorboards",
              json{{"trialIds", {1}}, {"experimentIds", {1}}}.dump(), token);
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.body.find("s3cr3t"), std::string::npos) << r.body;
    return spec_in(start_frame(
        json::parse(r.body)["tensorboard"]["id"].get<std::string>()));
  };
  connect_agent("a1", 1);
  ASSERT_TRUE(await_read([](const state::cluster_state& s) {
    return s.allocations.count("1.1") != 0;
  }));
  auto theirs = spec_of(mallory);
  EXPECT_EQ(theirs["storage"]["bucket"], "tb-bucket");
  EXPECT_EQ(theirs["storage"]["type"], "s3");
  EXPECT_FALSE(theirs["storage"].contains("access_key")) << theirs.dump();
  EXPECT_FALSE(theirs["storage"].contains("secret_key")) << theirs.dump();
  EXPECT_EQ(theirs["trials"], json::array({json::array({1, 1})}));
  // The owner and an admin get them: the agent may have no credentials.
  for (const auto& who : {eve, std::string{}}) {
    auto own = who.empty() ? spec_of(std::nullopt) : spec_of(who);
    EXPECT_EQ(own["storage"]["secret_key"], "s3cr3t-of-the-owner");
    EXPECT_EQ(own["storage"]["access_key"], "AKIAOWNERSKEY");
  }
}

TEST_F(tensorboards, bad_launches_are_refused_naming_why) {
  auto a = experiment(shared);
  auto b = experiment("  type: shared_fs\n  host_path: /tmp/tb-b\n");
  struct bad_case {
    json body;
    int status;
    std::string names;
  };
  std::vector<bad_case> cases{
      {json::object(), 400, "experimentIds: name at least one"},
      {{{"experimentIds", {0}}}, 400, "experimentIds: expected a list"},
      {{{"experimentIds", "1"}}, 400, "experimentIds: expected a list"},
      {{{"trialIds", {-3}}}, 400, "trialIds: expected a list"},
      {{{"experimentIds", {999}}}, 404, "experiment 999 not found"},
      {{{"trialIds", {999}}}, 404, "trial 999 not found"},
      {{{"experimentIds", {a, b}}}, 400, "different checkpoint storage"},
      {{{"experimentIds", {a}},
        {"config", {{"tensorboard_args", {"--bind_all"}}}}},
       400,
       "'--bind_all' is the master's to set"},
      {{{"experimentIds", {a}}, {"config", {{"tensorboard_args", "x"}}}},
       400,
       "config.tensorboard_args: expected a list"},
  };
  for (const auto& c : cases) {
    auto r = call("POST", "/api/v1/tensorboards", c.body.dump());
    EXPECT_EQ(r.status, c.status) << c.body.dump() << " -> " << r.body;
    EXPECT_NE(r.body.find(c.names), std::string::npos)
        << c.body.dump() << " -> " << r.body;
  }
  EXPECT_EQ(
      json::parse(call("GET", "/api/v1/tensorboards").body)["tensorboards"]
          .size(),
      0u);
}

TEST_F(tensorboards,
       the_newest_experiments_image_and_pull_secrets_are_inherited) {
  experiment(shared);
  auto b = experiment(std::string{shared}
                      + "environment:\n  image: img:1\n  pod_spec:\n"
                        "    spec:\n      imagePullSecrets: [{name: ips}]\n");
  auto r = call("POST", "/api/v1/tensorboards",
                json{{"experimentIds", {1, b}}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  auto env = json::parse(r.body)["config"]["environment"];
  EXPECT_EQ(env["image"],
            (json{{"cpu", "img:1"}, {"cuda", "img:1"}, {"rocm", "img:1"}}));
  EXPECT_EQ(env["pod_spec"]["spec"]["imagePullSecrets"],
            json::parse(R"([{"name": "ips"}])"));
  // Its own image wins, a name given for every device type.
  r = call("POST", "/api/v1/tensorboards",
           json{{"experimentIds", {b}},
                {"config", {{"environment", {{"image", "mine:2"}}}}}}
               .dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["config"]["environment"]["image"]["rocm"],
            "mine:2");
  r = call("POST", "/api/v1/tensorboards",
           json{{"experimentIds", {b}},
                {"config", {{"environment", {{"image", 7}}}}}}
               .dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("config.environment.image"), std::string::npos)
      << r.body;
}

} // namespace
