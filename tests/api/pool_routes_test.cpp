// The pool family's table (api/pool_routes.cpp) as a caller meets it: no
// session is 401 on every row, the simulation is an admin's (403 to others
// first; an unknown pool 404 naming it), and the pools list the
// configured one.

#include "api/pool_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

using pool_routes = master_api_test;

TEST_F(pool_routes, every_row_refuses_no_session_and_simulate_is_admins) {
  expect_401_without_a_session(api::pool_routes());
  auto bob = plain_user_token("bob");
  EXPECT_EQ(expect_403_on_admin_rows(api::pool_routes(), bob), 1u);
  auto pools = call("GET", "/api/v1/resource-pools", "", bob);
  ASSERT_EQ(pools.status, 200) << pools.body;
  auto list = json::parse(pools.body)["resourcePools"];
  ASSERT_EQ(list.size(), 1u) << pools.body;
  EXPECT_EQ(list[0]["name"], "default") << pools.body;
}

TEST_F(pool_routes, an_unknown_pool_is_404_naming_it) {
  auto r = call("POST", "/api/v1/resource-pools/nowhere/simulate", "{}");
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(json::parse(r.body)["error"]["error"],
            "resource pool nowhere not found");
}

} // namespace
