// The user family's table (api/user_routes.cpp) as a caller meets it: no
// session is 401 on every row but the login, a bad user or token id is
// 400 naming userId or tokenId, a non-admin is 403 on creating a user,
// and a user's access token works until it is revoked.

#include "api/user_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

using user_routes = master_api_test;

TEST_F(user_routes, every_row_but_the_login_refuses_no_session) {
  expect_401_without_a_session(api::user_routes());
  // The login needs none: it answers itself, right or wrong.
  auto wrong = call("POST", "/api/v1/auth/login",
                    R"({"username":"admin","password":"x","isHashed":true})",
                    std::string{});
  EXPECT_EQ(wrong.status, 401) << wrong.body;
  EXPECT_EQ(json::parse(wrong.body)["error"]["error"], "invalid credentials");
  auto right = call("POST", "/api/v1/auth/login",
                    R"({"username":"admin","password":"","isHashed":true})",
                    std::string{});
  ASSERT_EQ(right.status, 200) << right.body;
  EXPECT_FALSE(json::parse(right.body).value("token", "").empty());
}

TEST_F(user_routes, a_bad_user_or_token_id_is_refused_naming_it) {
  EXPECT_EQ(expect_400_for_a_bad(api::user_routes(), "user_id",
                                 "userId: not a valid id"),
            2u);
  EXPECT_EQ(expect_400_for_a_bad(api::user_routes(), "token_id",
                                 "tokenId: not a valid id"),
            1u);
}

TEST_F(user_routes, a_non_admin_may_not_create_a_user_but_reads_himself) {
  auto bob = plain_user_token("bob");
  EXPECT_EQ(expect_403_on_admin_rows(api::user_routes(), bob), 1u);
  auto me = call("GET", "/api/v1/me", "", bob);
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(json::parse(me.body)["user"]["username"], "bob") << me.body;
  auto by_name = call("GET", "/api/v1/users/bob/by-username", "", bob);
  ASSERT_EQ(by_name.status, 200) << by_name.body;
  auto id = json::parse(by_name.body)["user"]["id"].get<int64_t>();
  auto one = call("GET", "/api/v1/users/" + std::to_string(id), "", bob);
  EXPECT_EQ(one.status, 200) << one.body;
  auto nobody = call("GET", "/api/v1/users/nobody/by-username", "", bob);
  EXPECT_EQ(nobody.status, 404) << nobody.body;
  EXPECT_EQ(json::parse(nobody.body)["error"]["error"],
            "user 'nobody' not found");
}

TEST_F(user_routes, an_access_token_signs_in_until_it_is_revoked) {
  auto bob = plain_user_token("bob");
  auto me = json::parse(call("GET", "/api/v1/me", "", bob).body);
  auto bob_id = me["user"]["id"].get<int64_t>();
  // Not another user's token, unless an admin asks.
  auto admin_id =
      json::parse(call("GET", "/api/v1/me").body)["user"]["id"].get<int64_t>();
  auto theirs =
      call("POST", "/api/v1/tokens", json{{"userId", admin_id}}.dump(), bob);
  EXPECT_EQ(theirs.status, 403) << theirs.body;
  auto made =
      write("POST", "/api/v1/tokens",
            json{{"userId", bob_id}, {"description", "ci"}}.dump(), bob);
  ASSERT_EQ(made.status, 200) << made.body;
  auto token = json::parse(made.body)["token"].get<std::string>();
  auto token_id = json::parse(made.body)["tokenId"].get<int64_t>();
  auto as_token = call("GET", "/api/v1/me", "", token);
  ASSERT_EQ(as_token.status, 200) << as_token.body;
  EXPECT_EQ(json::parse(as_token.body)["user"]["username"], "bob");
  auto listed = call("GET", "/api/v1/tokens", "", bob);
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_NE(listed.body.find("\"ci\""), std::string::npos) << listed.body;
  auto revoked = write("PATCH", "/api/v1/tokens/" + std::to_string(token_id),
                       json{{"setRevoked", true}}.dump(), bob);
  ASSERT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_TRUE(json::parse(revoked.body)["tokenInfo"]["revoked"].get<bool>());
  EXPECT_EQ(call("GET", "/api/v1/me", "", token).status, 401);
}

} // namespace
