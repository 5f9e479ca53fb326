// The route tables (api/route_table.hpp): what a row's access makes the
// registration check, and (below) docs/api.md's route table checked
// against every family's rows.
#include "api/route_table.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

using namespace det;
using namespace det::test;

TEST_F(master_api_test, an_admin_row_answers_403_to_others_before_its_handler) {
  auto bob = plain_user_token("bob");
  auto r = call("POST", "/api/v1/cleanup_logs", "{}", bob);
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(json::parse(r.body)["error"]["error"],
            "user 'bob' does not have permission: admin only")
      << r.body;
  auto a = call("POST", "/api/v1/cleanup_logs", "{}");
  EXPECT_EQ(a.status, 200) << a.body;
  EXPECT_TRUE(json::parse(a.body).contains("removedCount")) << a.body;
}

TEST(route_table, a_prefix_holds_itself_and_the_paths_below_it) {
  EXPECT_TRUE(api::under_prefix("/api/v1/experiments", "/api/v1/experiments"));
  EXPECT_TRUE(
      api::under_prefix("/api/v1/experiments/{id}", "/api/v1/experiments"));
  EXPECT_FALSE(
      api::under_prefix("/api/v1/experimentsx", "/api/v1/experiments"));
  EXPECT_FALSE(api::under_prefix("/api/v1", "/api/v1/experiments"));
}
