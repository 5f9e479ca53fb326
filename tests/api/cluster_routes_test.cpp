// The cluster family's table (api/cluster_routes.cpp) as a caller meets
// it: no session is 401 on every row but the master's info (and /info), a
// non-admin is 403 on its admin rows before any check of the request, and a
// slot that is no number is 400 naming slotId.

#include "api/cluster_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

using cluster_routes = master_api_test;

TEST_F(cluster_routes, every_row_but_the_info_refuses_no_session) {
  const auto& family = api::cluster_routes();
  expect_401_without_a_session(family);
  auto info = call("GET", "/api/v1/master", "", std::string{});
  EXPECT_EQ(info.status, 200) << info.body;
  EXPECT_EQ(json::parse(info.body).value("branding", ""), "determined")
      << info.body;
  // Upstream's legacy /info too, rendered from the context.
  auto legacy = call("GET", "/info", "", std::string{});
  ASSERT_EQ(legacy.status, 200) << legacy.body;
  auto j = json::parse(legacy.body);
  EXPECT_EQ(j["version"], ctx->version) << legacy.body;
  EXPECT_TRUE(j["sso_providers"].is_null()) << legacy.body;
  EXPECT_FALSE(j["telemetry"]["enabled"].get<bool>()) << legacy.body;
}

TEST_F(cluster_routes, a_non_admin_is_refused_on_admin_rows_first) {
  auto bob = plain_user_token("bob");
  EXPECT_EQ(expect_403_on_admin_rows(api::cluster_routes(), bob), 6u);
  // Bob still reads what every signed-in user may.
  EXPECT_EQ(call("GET", "/api/v1/agents", "", bob).status, 200);
  // The cluster message refuses in its own words, as upstream does.
  auto msg = call("GET", "/api/v1/master/cluster_message", "", bob);
  EXPECT_EQ(msg.status, 403) << msg.body;
  EXPECT_NE(msg.body.find("user does not have permission"), std::string::npos)
      << msg.body;
}

TEST_F(cluster_routes, a_slot_that_is_no_number_is_refused_naming_slot_id) {
  connect_agent("a1", 2);
  EXPECT_EQ(expect_400_for_a_bad(api::cluster_routes(), "slot_id",
                                 "slotId: not a slot number", {},
                                 {"x1", "-3", "01x"}),
            3u);
}

} // namespace
