// The log family's table (api/log_routes.cpp) as a caller meets it: no
// session is 401 on every row, the cleanup is an admin's (403 to others
// first), and the legacy bare list is refused 400 when it is no list.

#include "api/log_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

using log_routes = master_api_test;

TEST_F(log_routes, every_row_refuses_no_session_and_cleanup_is_admins) {
  expect_401_without_a_session(api::log_routes());
  auto bob = plain_user_token("bob");
  EXPECT_EQ(expect_403_on_admin_rows(api::log_routes(), bob), 1u);
}

TEST_F(log_routes, a_bare_list_that_is_no_list_is_400_and_a_trial_ships) {
  auto r = call("POST", "/task-logs", R"({"logs": []})");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(json::parse(r.body)["error"]["error"],
            "body: expected a list of task logs");
  run_trial_1();
  auto tok = ctx->tokens->token_for("1.1");
  auto shipped = call("POST", "/api/v1/task/logs",
                      json{{"logs",
                            {{{"taskId", "1"},
                              {"allocationId", "1.1"},
                              {"log", "hello from the trial\n"}}}}}
                          .dump(),
                      tok);
  EXPECT_EQ(shipped.status, 200) << shipped.body;
}

} // namespace
