// Shells through their routes (api/api_tasks.cpp, api/shell_keys.hpp): the
// Shell object carries its key pair; the private key reaches its owner and
// admins only (never another user, in a list or by id), stays the same
// across requests, differs between shells and is in no event; the agent's
// start frame carries the public key alone. Bad ids and bodies are refused
// naming the field.

#include "api/ntsc_entrypoints.hpp"
#include "api/shell_keys.hpp"
#include "api/task_views.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

struct shell_routes : master_api_test {
  json launch_shell(std::optional<std::string> token = std::nullopt) {
    auto r = write("POST", "/api/v1/shells", json::object().dump(),
                   std::move(token));
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body);
  }
  json shell_as(const std::string& id, std::optional<std::string> token) {
    auto r = call("GET", "/api/v1/shells/" + id, "", std::move(token));
    EXPECT_EQ(r.status, 200) << r.body;
    auto j = json::parse(r.body);
    return j["shell"];
  }
  /// Every event payload of the log as text.
  std::string all_events() {
    std::string out;
    auto err = log.read({}, [&out](recorded_event&& rec) {
      out += rec.body.payload;
      out += '\n';
      return caf::error{};
    });
    EXPECT_FALSE(err);
    return out;
  }
};

const std::string pem_begin = "-----BEGIN OPENSSH PRIVATE KEY-----\n";

TEST_F(shell_routes, a_shell_is_launched_with_its_key_pair) {
  auto launched = launch_shell();
  auto shell = launched["shell"];
  auto id = shell["id"].get<std::string>();
  EXPECT_EQ(shell["state"], "STATE_QUEUED");
  EXPECT_EQ(shell["description"].get<std::string>().rfind("Shell (", 0), 0u);
  auto priv = shell["privateKey"].get<std::string>();
  auto pub = shell["publicKey"].get<std::string>();
  EXPECT_EQ(priv.rfind(pem_begin, 0), 0u) << priv;
  EXPECT_NE(priv.find("-----END OPENSSH PRIVATE KEY-----\n"),
            std::string::npos);
  EXPECT_EQ(pub.rfind("ssh-ed25519 AAAA", 0), 0u) << pub;
  EXPECT_EQ(shell["addresses"], json::array());
  EXPECT_EQ(shell["agentUserGroup"]["user"], "root");
  EXPECT_EQ(shell["agentUserGroup"]["uid"], 0);
  EXPECT_EQ(launched["warnings"], json::array());
  // The master chooses what a shell runs.
  EXPECT_FALSE(launched["config"].contains("entrypoint"));

  // The same pair on every read; another shell has its own.
  auto again = shell_as(id, std::nullopt);
  EXPECT_EQ(again["privateKey"], priv);
  EXPECT_EQ(again["publicKey"], pub);
  auto other = launch_shell()["shell"];
  EXPECT_NE(other["privateKey"], priv);
  EXPECT_NE(other["publicKey"], pub);
  auto keys = api::shell_keys(*ctx->tokens, id);
  EXPECT_EQ(keys.private_key, priv);
  EXPECT_EQ(keys.public_key, pub);

  // No event holds the private key (it is derived, never stored).
  auto events = all_events();
  auto body = priv.substr(pem_begin.size(), 40);
  EXPECT_EQ(events.find(body), std::string::npos);
  EXPECT_EQ(events.find("OPENSSH PRIVATE KEY"), std::string::npos);
}

TEST_F(shell_routes, only_the_owner_and_admins_see_the_private_key) {
  auto mallory = plain_user_token("mallory");
  auto eve = plain_user_token("eve");
  auto shell = launch_shell(mallory)["shell"];
  auto id = shell["id"].get<std::string>();
  auto priv = shell["privateKey"].get<std::string>();
  ASSERT_EQ(priv.rfind(pem_begin, 0), 0u);
  EXPECT_EQ(shell_as(id, mallory)["privateKey"], priv);
  EXPECT_EQ(shell_as(id, std::nullopt)["privateKey"], priv); // admin

  auto seen = shell_as(id, eve);
  EXPECT_EQ(seen["privateKey"], "");
  EXPECT_EQ(seen["publicKey"], shell["publicKey"]);
  auto body = priv.substr(pem_begin.size(), 40);
  for (auto path :
       {std::string{"/api/v1/shells"},
        std::string{"/api/v1/shells?users=mallory"}, "/api/v1/shells/" + id,
        "/api/v1/tasks/" + id, std::string{"/api/v1/tasks"}}) {
    auto r = call("GET", path, "", eve);
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    EXPECT_EQ(r.body.find(body), std::string::npos) << path;
    EXPECT_EQ(r.body.find("OPENSSH PRIVATE KEY"), std::string::npos) << path;
  }
  auto listed = call("GET", "/api/v1/shells", "", mallory);
  EXPECT_NE(listed.body.find(body), std::string::npos);
  // Eve may not kill it or change its priority; its owner may.
  EXPECT_EQ(call("POST", "/api/v1/shells/" + id + "/kill", "", eve).status,
            403);
  EXPECT_EQ(call("POST", "/api/v1/shells/" + id + "/set_priority",
                 json{{"priority", 3}}.dump(), eve)
                .status,
            403);
  auto killed = write("POST", "/api/v1/shells/" + id + "/kill", "", mallory);
  ASSERT_EQ(killed.status, 200) << killed.body;
  auto j = json::parse(killed.body);
  EXPECT_EQ(j["shell"]["state"], "STATE_TERMINATED");
}

TEST_F(shell_routes, the_agent_gets_the_public_key_and_never_the_private) {
  task_start_order o;
  o.agent_id = "a1";
  o.task_id = "0123abcd-0000-4000-8000-000000000000";
  o.allocation_id = o.task_id + ".1";
  o.task_type = "SHELL";
  o.owner = "admin";
  auto keys = api::shell_keys(*ctx->tokens, o.task_id);
  auto frame = api::task_start_frame(o, "cpu", {},
                                     {"tok", "user-tok", "", keys.public_key});
  EXPECT_EQ(frame["env"]["DET_SESSION_TOKEN"], "tok");
  EXPECT_EQ(frame["env"]["DET_USER_TOKEN"], "user-tok");
  EXPECT_EQ(frame["env"]["DET_SHELL_PUBLIC_KEY"], keys.public_key);
  // The context's startup hook first, then sshd's script.
  auto ep = frame["entrypoint"].get<std::string>();
  auto sshd = api::shell_entrypoint();
  ASSERT_GT(ep.size(), sshd.size());
  EXPECT_EQ(ep.substr(ep.size() - sshd.size()), sshd);
  EXPECT_EQ(ep.rfind("if [ -f ./startup-hook.sh ]", 0), 0u) << ep;
  auto text = frame.dump();
  EXPECT_EQ(text.find("PRIVATE KEY"), std::string::npos);
  EXPECT_EQ(text.find(keys.private_key.substr(pem_begin.size(), 40)),
            std::string::npos);
}

TEST_F(shell_routes, the_login_user_is_the_owners_linked_agent_user) {
  json group{{"agentUid", 1234},
             {"agentGid", 1235},
             {"agentUser", "alice"},
             {"agentGroup", "lab"}};
  auto made = call("POST", "/api/v1/users",
                   json{{"user",
                         {{"username", "al"},
                          {"admin", false},
                          {"active", true},
                          {"agentUserGroup", group}}},
                        {"password", api::client_hash("Secret123")},
                        {"isHashed", true}}
                       .dump());
  ASSERT_EQ(made.status, 200) << made.body;
  auto login = call(
      "POST", "/api/v1/auth/login",
      json{{"username", "al"}, {"password", "Secret123"}, {"isHashed", false}}
          .dump(),
      "");
  ASSERT_EQ(login.status, 200) << login.body;
  auto al = json::parse(login.body).value("token", "");
  auto aug = launch_shell(al)["shell"]["agentUserGroup"];
  EXPECT_EQ(aug["user"], "alice");
  EXPECT_EQ(aug["uid"], 1234);
  EXPECT_EQ(aug["group"], "lab");
  EXPECT_EQ(aug["gid"], 1235);
}

TEST_F(shell_routes, bad_ids_and_bodies_are_refused_naming_the_field) {
  auto r = call("GET", "/api/v1/shells/not-a-uuid!");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("shellId"), std::string::npos) << r.body;
  r = call("GET", "/api/v1/shells/" + std::string(100, 'a'));
  EXPECT_EQ(r.status, 400);
  r = call("POST", "/api/v1/shells/%00/kill");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("shellId"), std::string::npos) << r.body;
  const std::string unknown = "00000000-0000-4000-8000-000000000000";
  r = call("GET", "/api/v1/shells/" + unknown);
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("shell not found"), std::string::npos) << r.body;
  struct bad_case {
    json body;
    std::string names;
  };
  std::vector<bad_case> cases{
      {{{"config", "sshd"}}, "config: expected an object"},
      {{{"config", {{"colour", "red"}}}}, "unknown field 'colour'"},
      {{{"config", {{"resources", {{"slots", -1}}}}}},
       "config.resources.slots"},
      {{{"config", {{"description", std::string(2000, 'x')}}}},
       "config.description"},
      {{{"config", {{"description", std::string("a\0b", 3)}}}},
       "config.description"},
      {{{"config", json::object()}, {"workspaceId", "one"}}, "workspaceId"},
      {{{"config", json::object()}, {"sneaky", true}}, "'sneaky'"},
  };
  for (const auto& c : cases) {
    auto res = call("POST", "/api/v1/shells", c.body.dump());
    EXPECT_EQ(res.status, 400) << c.body.dump() << " -> " << res.body;
    EXPECT_NE(res.body.find(c.names), std::string::npos)
        << c.body.dump() << " -> " << res.body;
  }
  auto bad = call("POST", "/api/v1/shells", "{not json");
  EXPECT_EQ(bad.status, 400);
  auto id = launch_shell()["shell"]["id"].get<std::string>();
  r = call("POST", "/api/v1/shells/" + id + "/set_priority",
           json{{"priority", "high"}}.dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("priority"), std::string::npos) << r.body;
  auto shells = json::parse(call("GET", "/api/v1/shells").body);
  EXPECT_EQ(shells["shells"].size(), 1u);
}

} // namespace
