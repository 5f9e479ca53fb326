// The webhook family's table (api/webhook_routes.cpp) as a caller meets
// it: no session is 401 on every row, a webhook id that is no positive
// number is 400 naming id, and a non-admin may neither test a webhook nor
// create a global one, while an admin's is listed until deleted.

#include "api/webhook_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

using webhook_routes = master_api_test;

json a_webhook(const std::string& url) {
  return {{"url", url},
          {"webhookType", "WEBHOOK_TYPE_DEFAULT"},
          {"name", "h"},
          {"triggers",
           {{{"triggerType", "TRIGGER_TYPE_EXPERIMENT_STATE_CHANGE"},
             {"condition", {{"state", "COMPLETED"}}}}}}};
}

TEST_F(webhook_routes, every_row_refuses_no_session) {
  expect_401_without_a_session(api::webhook_routes());
}

TEST_F(webhook_routes, a_bad_webhook_id_is_refused_naming_id) {
  EXPECT_EQ(
      expect_400_for_a_bad(api::webhook_routes(), "id", "id: not a valid id"),
      3u);
}

TEST_F(webhook_routes, only_an_admin_tests_or_makes_a_global_webhook) {
  auto made = write("POST", "/api/v1/webhooks",
                    a_webhook("http://127.0.0.1:9/a").dump());
  ASSERT_EQ(made.status, 200) << made.body;
  auto id = json::parse(made.body)["webhook"]["id"].get<int64_t>();
  auto bob = plain_user_token("bob");
  auto test = call("POST", "/api/v1/webhooks/" + std::to_string(id) + "/test",
                   "{}", bob);
  EXPECT_EQ(test.status, 403) << test.body;
  EXPECT_EQ(json::parse(test.body)["error"]["error"],
            "non admin users can't edit global webhooks");
  auto his = call("POST", "/api/v1/webhooks",
                  a_webhook("http://127.0.0.1:9/b").dump(), bob);
  EXPECT_EQ(his.status, 400) << his.body;
  EXPECT_NE(his.body.find("non admin"), std::string::npos) << his.body;
  // Bob sees the global one; the admin deletes it.
  auto listed = call("GET", "/api/v1/webhooks", "", bob);
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_EQ(json::parse(listed.body)["webhooks"].size(), 1u) << listed.body;
  auto gone = write("DELETE", "/api/v1/webhooks/" + std::to_string(id));
  EXPECT_EQ(gone.status, 200) << gone.body;
  EXPECT_EQ(
      json::parse(call("GET", "/api/v1/webhooks").body)["webhooks"].size(), 0u);
}

} // namespace
