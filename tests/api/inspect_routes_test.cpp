// The inspect family's table (api/inspect_routes.cpp) as a caller meets
// it: no session is 401 on every row, the inspect rows are admins' (403 to
// others first), an unknown view is 404 naming the known ones, and
// /metrics answers Prometheus text to any signed-in caller.

#include "api/inspect_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

using inspect_routes = master_api_test;

TEST_F(inspect_routes, every_row_refuses_no_session_and_inspect_is_admins) {
  expect_401_without_a_session(api::inspect_routes());
  auto bob = plain_user_token("bob");
  EXPECT_EQ(expect_403_on_admin_rows(api::inspect_routes(), bob), 3u);
  auto m = call("GET", "/metrics", "", bob);
  ASSERT_EQ(m.status, 200) << m.body;
  EXPECT_EQ(m.headers.get("Content-Type").value_or(""),
            "text/plain; version=0.0.4; charset=utf-8");
}

TEST_F(inspect_routes, an_unknown_view_is_404_and_no_log_is_503) {
  auto r = call("GET", "/api/v1/inspect/nope");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(json::parse(r.body)["error"]["error"].get<std::string>().rfind(
                "no inspect view 'nope'; known: ", 0),
            0u)
      << r.body;
  EXPECT_TRUE(get("/api/v1/inspect/agents").is_array()
              || get("/api/v1/inspect/agents").is_object());
  // The fixture opens no event log: its queries are refused, not hung.
  auto events = call("GET", "/api/v1/inspect/events");
  EXPECT_EQ(events.status, 503) << events.body;
  EXPECT_EQ(json::parse(events.body)["error"]["error"], "no event log to read");
}

} // namespace
