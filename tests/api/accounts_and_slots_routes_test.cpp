// Users, the cluster message, master info and slots over the REST routes,
// as upstream 0.38.1 answers them (tests/api/route_fixture.hpp): the
// user POST /api/v1/users answers, the list's active filter, the names
// upstream reserves, the agent user group's all-or-none, a cluster message
// that waits for its start (on an injected clock), and slots, free ones
// with "container": null.

#include "api/views.hpp"
#include "tests/api/route_fixture.hpp"
#include "util/time_text.hpp"

#include <atomic>

using namespace det;
using json = nlohmann::json;

using det::test::master_api_test;

namespace {

/// The error text of a refused answer.
std::string error_of(const http::http_response& r) {
  auto j = json::parse(r.body, nullptr, false);
  return j.is_object() ? j["error"].value("error", "") : "";
}

/// The usernames a GET /api/v1/users answer lists.
std::vector<std::string> usernames_of(const http::http_response& r) {
  std::vector<std::string> out;
  auto listed = json::parse(r.body);
  for (const auto& u : listed["users"])
    out.push_back(u["username"].get<std::string>());
  return out;
}

bool names_include(const std::vector<std::string>& names,
                   const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

json new_user(const std::string& name, json extra = json::object()) {
  json user{{"username", name}, {"admin", false}, {"active", true}};
  user.update(extra);
  return json{{"user", user},
              {"password", api::client_hash("Secret123")},
              {"isHashed", true}};
}

} // namespace

TEST_F(master_api_test, a_created_user_is_answered_with_its_agent_user_group) {
  auto plain = call("POST", "/api/v1/users", new_user("una").dump());
  ASSERT_EQ(plain.status, 200) << plain.body;
  EXPECT_TRUE(json::parse(plain.body)["user"]["agentUserGroup"].is_null());

  json group{{"agentUid", 1000},
             {"agentGid", 1001},
             {"agentUser", "username"},
             {"agentGroup", "groupname"}};
  auto r = call("POST", "/api/v1/users",
                new_user("uma", {{"agentUserGroup", group},
                                 {"displayName", "  Uma U.  "}})
                    .dump());
  ASSERT_EQ(r.status, 200) << r.body;
  auto user = json::parse(r.body)["user"];
  EXPECT_EQ(user["agentUserGroup"], group);
  EXPECT_EQ(user["displayName"], "Uma U."); // without the blanks, as upstream
  auto id = std::to_string(user["id"].get<int64_t>());
  EXPECT_EQ(
      json::parse(
          call("GET", "/api/v1/users/" + id).body)["user"]["agentUserGroup"],
      group);
}

TEST_F(master_api_test,
       an_agent_user_group_without_names_is_refused_in_upstreams_words) {
  auto before = log.last_position();
  json ids_only{{"agentUid", 1000}, {"agentGid", 1001}};
  auto r = call("POST", "/api/v1/users",
                new_user("ida", {{"agentUserGroup", ids_only}}).dump());
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(error_of(r),
            "agentUid, agentGid, agentUser and agentGroup cannot be empty");
  EXPECT_EQ(log.last_position(), before) << "a refused create wrote events";

  ASSERT_EQ(call("POST", "/api/v1/users", new_user("ida").dump()).status, 200);
  auto id = std::to_string(
      json::parse(
          call("GET", "/api/v1/users/ida/by-username").body)["user"]["id"]
          .get<int64_t>());
  r = call("PATCH", "/api/v1/users/" + id,
           json{{"agentUserGroup", ids_only}}.dump());
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(error_of(r),
            "agentUid, agentGid, agentUser and agentGroup cannot be empty");
  r = call("PATCH", "/api/v1/users/" + id,
           json{{"agentUserGroup",
                 {{"agentUid", 1},
                  {"agentGid", 1},
                  {"agentUser", ""},
                  {"agentGroup", ""}}}}
               .dump());
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(error_of(r), "agentUser and agentGroup names cannot be empty");
  // A bad value still names its field.
  r = call("PATCH", "/api/v1/users/" + id,
           json{{"agentUserGroup", {{"agentUid", -5}}}}.dump());
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(error_of(r).find("agentUserGroup.agentUid"), std::string::npos);
}

TEST_F(master_api_test, the_user_list_leaves_out_deactivated_users_if_asked) {
  ASSERT_EQ(call("POST", "/api/v1/users", new_user("ivy").dump()).status, 200);
  ASSERT_EQ(
      call("POST", "/api/v1/users", new_user("ike", {{"active", false}}).dump())
          .status,
      200);
  // det user ls asks for active=true; with --all, for no filter.
  auto active = call("GET", "/api/v1/users?active=true");
  ASSERT_EQ(active.status, 200) << active.body;
  EXPECT_TRUE(names_include(usernames_of(active), "ivy"));
  EXPECT_FALSE(names_include(usernames_of(active), "ike"));
  auto all = usernames_of(call("GET", "/api/v1/users"));
  EXPECT_TRUE(names_include(all, "ivy") && names_include(all, "ike"));
  auto inactive = usernames_of(call("GET", "/api/v1/users?active=false"));
  EXPECT_EQ(inactive, std::vector<std::string>{"ike"});
  EXPECT_EQ(usernames_of(call("GET", "/api/v1/users?name=IV")),
            std::vector<std::string>{"ivy"});
  auto bad = call("GET", "/api/v1/users?active=yes%20please");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(error_of(bad).find("active"), std::string::npos) << bad.body;
}

TEST_F(master_api_test, a_non_admin_cannot_go_by_admin_in_any_case) {
  auto made = call("POST", "/api/v1/users", new_user("bea").dump());
  ASSERT_EQ(made.status, 200) << made.body;
  auto id = std::to_string(json::parse(made.body)["user"]["id"].get<int64_t>());
  for (const char* name : {"Admin", " aDmIn "}) {
    auto r = call("PATCH", "/api/v1/users/" + id,
                  json{{"displayName", name}}.dump());
    EXPECT_EQ(r.status, 400) << name;
    EXPECT_EQ(error_of(r),
              "displayName: Non-admin user cannot be renamed 'admin'");
  }
  auto r = call("PATCH", "/api/v1/users/" + id,
                json{{"displayName", "Determined"}}.dump());
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_of(r), "displayName: User cannot be renamed 'determined'");
  r = call("POST", "/api/v1/users",
           new_user("bo", {{"displayName", "ADMIN"}}).dump());
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(error_of(r).find("user.displayName"), std::string::npos);
  EXPECT_EQ(call("GET", "/api/v1/users/bo/by-username").status, 404);
  // An admin may; clearing it is always allowed.
  EXPECT_EQ(
      call("PATCH", "/api/v1/users/1", json{{"displayName", "Admin"}}.dump())
          .status,
      200);
  r = call("PATCH", "/api/v1/users/" + id, json{{"displayName", ""}}.dump());
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(master_api_test,
       a_cluster_message_scheduled_later_shows_in_master_info_from_its_start) {
  auto clock = clock_us;
  clock->store(1'800'000'000'000'000);
  constexpr int64_t hour_us = 3'600'000'000;
  auto start = clock->load() + hour_us;
  auto set = call("PUT", "/api/v1/master/cluster_message",
                  json{{"message", "maintenance"},
                       {"startTime", api::rfc3339(start)},
                       {"duration", "2h"}}
                      .dump());
  ASSERT_EQ(set.status, 200) << set.body;
  auto master = [&] {
    return json::parse(call("GET", "/api/v1/master").body)
        .value("clusterMessage", json());
  };
  auto get = [&] {
    return json::parse(call("GET", "/api/v1/master/cluster_message").body)
        .value("clusterMessage", json());
  };
  EXPECT_TRUE(master().is_null()) << master();
  EXPECT_EQ(get().value("message", ""), "maintenance");
  // In upstream's form: whole seconds without a fraction.
  EXPECT_EQ(get().value("endTime", ""),
            util::format_rfc3339_trimmed(start + 2 * hour_us));
  EXPECT_EQ(get().value("endTime", "").back(), 'Z');
  EXPECT_EQ(get().value("endTime", "").find('.'), std::string::npos);
  clock->store(start + 1);
  EXPECT_EQ(master().value("message", ""), "maintenance");
  clock->store(start + 2 * hour_us);
  EXPECT_TRUE(master().is_null());
  EXPECT_TRUE(get().is_null());
}

TEST_F(master_api_test,
       a_non_admin_is_refused_the_cluster_message_as_upstream_refuses_it) {
  ASSERT_EQ(call("POST", "/api/v1/users", new_user("nia").dump()).status, 200);
  auto login = call(
      "POST", "/api/v1/auth/login",
      json{{"username", "nia"}, {"password", "Secret123"}, {"isHashed", false}}
          .dump(),
      "");
  ASSERT_EQ(login.status, 200) << login.body;
  auto token = json::parse(login.body)["token"].get<std::string>();
  auto r = call("GET", "/api/v1/master/cluster_message", "", token);
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(error_of(r), "user does not have permission");
  EXPECT_EQ(call("DELETE", "/api/v1/master/cluster_message", "", token).status,
            403);
  EXPECT_EQ(call("GET", "/api/v1/master", "", token).status, 200);
}

TEST_F(master_api_test, master_info_answers_empty_external_login_uris) {
  auto master = json::parse(call("GET", "/api/v1/master").body);
  EXPECT_EQ(master["externalLoginUri"], "");
  EXPECT_EQ(master["externalLogoutUri"], "");
  EXPECT_EQ(master["clusterName"], "");
}

TEST_F(master_api_test, a_free_slot_has_a_null_container_and_answers_alone) {
  connect_agent("a2", 2);
  ASSERT_TRUE(await_read([](const state::cluster_state& s) {
    return s.agents.count("a2") != 0;
  })) << "agent a2 did not connect within 10 s";
  auto agents = json::parse(call("GET", "/api/v1/agents").body);
  ASSERT_EQ(agents["agents"].size(), 1u) << agents;
  const auto& free_slot = agents["agents"][0]["slots"]["0"];
  ASSERT_TRUE(free_slot.contains("container")) << free_slot;
  EXPECT_TRUE(free_slot["container"].is_null());

  auto slots = call("GET", "/api/v1/agents/a2/slots");
  ASSERT_EQ(slots.status, 200) << slots.body;
  auto listed = json::parse(slots.body)["slots"];
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[1]["id"], "1");
  EXPECT_TRUE(listed[1].contains("container"));

  auto one = call("GET", "/api/v1/agents/a2/slots/1");
  ASSERT_EQ(one.status, 200) << one.body;
  auto slot = json::parse(one.body)["slot"];
  EXPECT_EQ(slot["id"], "1");
  EXPECT_EQ(slot["enabled"], true);
  EXPECT_TRUE(slot.contains("container") && slot["container"].is_null());
  ASSERT_EQ(call("POST", "/api/v1/agents/a2/slots/1/disable", "{}").status,
            200);
  EXPECT_EQ(
      json::parse(
          call("GET", "/api/v1/agents/a2/slots/1").body)["slot"]["enabled"],
      false);

  auto r = call("GET", "/api/v1/agents/a2/slots/2");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(error_of(r), "slot 2 of agent 'a2' not found");
  r = call("GET", "/api/v1/agents/nope/slots/0");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(error_of(r), "agent 'nope' not found");
  EXPECT_EQ(call("GET", "/api/v1/agents/nope/slots").status, 404);
  r = call("GET", "/api/v1/agents/a2/slots/-1");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(error_of(r).find("slotId"), std::string::npos);
}
