// The config-policies routes (api/config_policy_routes.cpp) over a real
// master: PUT/GET/DELETE, global and per workspace, in upstream's shapes;
// refusals naming the field; who may write; experiment creation merging
// the invariant config and refused past the constraints.

#include "api/config_policy_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

using namespace det;
using namespace det::test;

namespace {

struct config_policy_routes : master_api_test {
  http::http_response write(const std::string& method, const std::string& path,
                            const std::string& body = "",
                            std::optional<std::string> token = std::nullopt) {
    auto r = call(method, path, body, token);
    if (auto at = r.headers.get("X-Det-Position"))
      extra_headers["X-Det-Min-Position"] = *at;
    return r;
  }

  static std::string put_body(const std::string& type,
                              const std::string& text) {
    return json{{"workloadType", type}, {"configPolicies", text}}.dump();
  }

  static std::string error_of(const http::http_response& r) {
    auto j = json::parse(r.body, nullptr, false);
    return j.is_object() && j.contains("error") ? j["error"].value("error", "")
                                                : r.body;
  }
};

const char* policy_text = "constraints:\n  priority_limit: 10\n  resources:\n"
                          "    max_slots: 4\ninvariant_config:\n"
                          "  description: by policy\n";

TEST_F(config_policy_routes, set_describe_and_delete_in_upstreams_shapes) {
  auto r = write("PUT", "/api/v1/config-policies/workspaces/1/EXPERIMENT",
                 put_body("EXPERIMENT", policy_text));
  ASSERT_EQ(r.status, 200) << r.body;
  json expected = {
      {"constraints",
       {{"priority_limit", 10}, {"resources", {{"max_slots", 4}}}}},
      {"invariant_config", {{"description", "by policy"}}}};
  EXPECT_EQ(json::parse(r.body)["configPolicies"], expected);
  r = call("GET", "/api/v1/config-policies/workspaces/1/EXPERIMENT");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["configPolicies"], expected);
  r = call("GET", "/api/v1/config-policies/global/EXPERIMENT");
  EXPECT_EQ(json::parse(r.body)["configPolicies"], json::object()) << r.body;
  r = write("PUT", "/api/v1/config-policies/global/NTSC",
            put_body("NTSC", R"({"constraints": {"priority_limit": 3}})"));
  ASSERT_EQ(r.status, 200) << r.body;
  r = call("GET", "/api/v1/config-policies/global/NTSC");
  EXPECT_EQ(
      json::parse(r.body)["configPolicies"]["constraints"]["priority_limit"], 3)
      << r.body;
  r = write("DELETE", "/api/v1/config-policies/workspaces/1/EXPERIMENT");
  ASSERT_EQ(r.status, 200) << r.body;
  r = call("GET", "/api/v1/config-policies/workspaces/1/EXPERIMENT");
  EXPECT_EQ(json::parse(r.body)["configPolicies"], json::object()) << r.body;
  r = call("GET", "/api/v1/config-policies/workspaces/77/EXPERIMENT");
  EXPECT_EQ(r.status, 404) << r.body;
}

TEST_F(config_policy_routes, bad_requests_are_400_naming_the_field) {
  struct bad_case {
    std::string path;
    std::string body;
    std::string named;
  };
  std::vector<bad_case> cases{
      {"/api/v1/config-policies/global/TASKS", put_body("TASKS", "{}"),
       "workloadType"},
      {"/api/v1/config-policies/global/EXPERIMENT", put_body("EXPERIMENT", ""),
       "configPolicies"},
      {"/api/v1/config-policies/global/EXPERIMENT",
       json{{"configPolicies", 5}}.dump(), "configPolicies"},
      {"/api/v1/config-policies/global/EXPERIMENT",
       put_body("EXPERIMENT", std::string("constraints: {}\n\x01", 17)),
       "configPolicies"},
      {"/api/v1/config-policies/global/EXPERIMENT",
       put_body("EXPERIMENT", "constraints: [1, 2"), "configPolicies"},
      {"/api/v1/config-policies/global/EXPERIMENT",
       put_body("EXPERIMENT", "invariant_config:\n  resourcez: {}\n"),
       "resourcez"},
      {"/api/v1/config-policies/global/EXPERIMENT",
       put_body("EXPERIMENT", "invariant_config:\n  resources:\n"
                              "    slots_per_trial: many\n"),
       "invariant_config"},
      {"/api/v1/config-policies/global/NTSC",
       put_body("NTSC", "invariant_config:\n  description: x\n"),
       "invariant_config"},
      {"/api/v1/config-policies/workspaces/x/EXPERIMENT",
       put_body("EXPERIMENT", "{}"), "workspaceId"},
  };
  for (const auto& bc : cases) {
    auto r = call("PUT", bc.path, bc.body);
    EXPECT_EQ(r.status, 400) << bc.body << " -> " << r.body;
    EXPECT_NE(error_of(r).find(bc.named), std::string::npos)
        << bc.body << " -> " << r.body;
  }
  EXPECT_EQ(call("GET", "/api/v1/config-policies/global/EXPERIMENT").body,
            R"({"configPolicies":{}})");
}

TEST_F(config_policy_routes, a_user_who_is_not_an_admin_cannot_set_global) {
  auto made =
      call("POST", "/api/v1/users",
           R"({"user":{"username":"bob","active":true},"password":""})");
  ASSERT_EQ(made.status, 200) << made.body;
  auto login = call("POST", "/api/v1/auth/login",
                    R"({"username":"bob","password":"","isHashed":true})", "");
  auto bob = json::parse(login.body).value("token", "");
  auto r = call("PUT", "/api/v1/config-policies/global/EXPERIMENT",
                put_body("EXPERIMENT", policy_text), bob);
  EXPECT_EQ(r.status, 403) << r.body;
  r = call("PUT", "/api/v1/config-policies/workspaces/1/EXPERIMENT",
           put_body("EXPERIMENT", policy_text), bob);
  EXPECT_EQ(r.status, 403) << r.body;
  // Reading is open to every user.
  EXPECT_EQ(
      call("GET", "/api/v1/config-policies/global/EXPERIMENT", "", bob).status,
      200);
}

TEST_F(config_policy_routes, experiments_get_the_invariant_config_and_limits) {
  ASSERT_EQ(write("PUT", "/api/v1/config-policies/global/EXPERIMENT",
                  put_body("EXPERIMENT", policy_text))
                .status,
            200);
  auto r = write(
      "POST", "/api/v1/experiments",
      create_body(std::string(good_config) + "resources:\n  max_slots: 8\n"));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(error_of(r).find("resources.max_slots"), std::string::npos)
      << r.body;
  r = write("POST", "/api/v1/experiments",
            create_body(std::string(good_config) + "description: mine\n"));
  ASSERT_EQ(r.status, 200) << r.body;
  auto id = json::parse(r.body)["experiment"]["id"].get<int64_t>();
  r = call("GET", "/api/v1/experiments/" + std::to_string(id));
  EXPECT_EQ(json::parse(r.body)["config"]["description"], "by policy")
      << r.body;
}

// The family's table (api/config_policy_routes.cpp): no session is 401 on
// every row, and a workspace that is no positive id is 400 naming
// workspaceId before anything else of the request.
TEST_F(config_policy_routes, every_row_refuses_no_session) {
  expect_401_without_a_session(api::config_policy_routes());
}

TEST_F(config_policy_routes, a_bad_workspace_id_is_refused_naming_it) {
  EXPECT_EQ(expect_400_for_a_bad(api::config_policy_routes(), "workspaceId",
                                 "workspaceId: not a valid id"),
            3u);
}

} // namespace
