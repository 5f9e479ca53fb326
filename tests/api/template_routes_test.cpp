// The template family's table (api/template_routes.cpp) as a caller meets
// it: no session is 401 on every row; a template is created once (409 the
// second time), read, listed, replaced and removed (then 404 naming it);
// a body naming another template than the path is 400 naming `name`.

#include "api/template_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

using template_routes = master_api_test;

TEST_F(template_routes, every_row_refuses_no_session) {
  expect_401_without_a_session(api::template_routes());
}

TEST_F(template_routes, a_template_is_made_once_read_replaced_and_removed) {
  auto body = json{{"config", {{"description", "one"}}}}.dump();
  auto made = write("POST", "/api/v1/templates/t1", body);
  ASSERT_EQ(made.status, 200) << made.body;
  auto again = write("POST", "/api/v1/templates/t1", body);
  EXPECT_EQ(again.status, 409) << again.body;
  auto other = call("POST", "/api/v1/templates/t2",
                    json{{"name", "t3"}, {"config", json::object()}}.dump());
  EXPECT_EQ(other.status, 400) << other.body;
  EXPECT_EQ(json::parse(other.body)["error"]["error"],
            "name: the body names another template than the path");
  auto one = get("/api/v1/templates/t1");
  EXPECT_EQ(one["template"]["name"], "t1") << one;
  auto listed = get("/api/v1/templates");
  ASSERT_EQ(listed["templates"].size(), 1u) << listed;
  auto set = write("PATCH", "/api/v1/templates/t1",
                   json{{"description", "two"}}.dump());
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_NE(set.body.find("two"), std::string::npos) << set.body;
  auto gone = write("DELETE", "/api/v1/templates/t1");
  EXPECT_EQ(gone.status, 200) << gone.body;
  auto missing = call("GET", "/api/v1/templates/t1");
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_EQ(json::parse(missing.body)["error"]["error"],
            "template 't1' not found");
}

TEST_F(template_routes, a_bad_workspace_filter_is_400_naming_it) {
  auto r = call("GET", "/api/v1/templates?workspaceIds=x");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(json::parse(r.body)["error"]["error"],
            "workspaceIds: expected positive integers");
}

} // namespace
