// inspect/api_source against scripted answers: what it asks the master,
// with which token, and how a refusal or an unreachable master is told.

#include "inspect/source.hpp"
#include "messages/errc.hpp"

#include <gtest/gtest.h>

#include <deque>

using namespace det;
using namespace det::inspect_cli;

namespace {

struct scripted {
  std::deque<caf::expected<http_answer>> answers;
  std::vector<http_exchange> asked;
  http_transport transport() {
    return [this](const http_exchange& x) -> caf::expected<http_answer> {
      asked.push_back(x);
      auto a = std::move(answers.front());
      answers.pop_front();
      return a;
    };
  }
};

std::string header(const http_exchange& x, const std::string& name) {
  for (const auto& [n, v] : x.headers)
    if (n == name)
      return v;
  return "";
}

} // namespace

TEST(api_source, a_user_logs_in_with_the_hashed_password_and_uses_the_token) {
  scripted s;
  s.answers.push_back(http_answer{200, R"({"token":"tok-1"})"});
  s.answers.push_back(http_answer{200, R"({"pools":[]})"});
  api_options o;
  o.master_url = "http://m:8080/";
  o.user = "admin";
  o.password = "pw";
  auto src = make_api_source(o, s.transport());
  ASSERT_TRUE(src) << render(src.error());
  auto v = (*src)->view(inspection::view_kind::pools);
  ASSERT_TRUE(v) << render(v.error());
  EXPECT_EQ((*v)["pools"], nlohmann::json::array());
  ASSERT_EQ(s.asked.size(), 2u);
  EXPECT_EQ(s.asked[0].method, "POST");
  EXPECT_EQ(s.asked[0].url, "http://m:8080/api/v1/auth/login");
  auto body = nlohmann::json::parse(s.asked[0].body);
  EXPECT_EQ(body["password"], salt_and_hash("pw"));
  EXPECT_EQ(body["password"].get<std::string>().size(), 128u);
  EXPECT_EQ(s.asked[1].url, "http://m:8080/api/v1/inspect/pools");
  EXPECT_EQ(header(s.asked[1], "Authorization"), "Bearer tok-1");
}

TEST(api_source, event_filters_become_an_encoded_query) {
  scripted s;
  s.answers.push_back(http_answer{200, R"({"events":[]})"});
  api_options o;
  o.master_url = "http://m";
  o.token = "t";
  auto src = make_api_source(o, s.transport());
  ASSERT_TRUE(src);
  inspection::event_filter f;
  f.from = 5;
  f.stream = "trial/1 2";
  f.limit = 7;
  ASSERT_TRUE((*src)->events(f));
  EXPECT_EQ(
      s.asked[0].url,
      "http://m/api/v1/inspect/events?limit=7&from=5&stream=trial%2F1%202");
  EXPECT_EQ(header(s.asked[0], "Authorization"), "Bearer t");
}

TEST(api_source, a_refusal_carries_the_masters_message_and_status) {
  scripted s;
  s.answers.push_back(
      http_answer{404, R"({"error":{"error":"position 99 is past the end"}})"});
  s.answers.push_back(make_error(errc::remote_error, "connection refused"));
  api_options o;
  o.master_url = "http://m";
  auto src = make_api_source(o, s.transport());
  ASSERT_TRUE(src);
  auto st = (*src)->state(99);
  ASSERT_FALSE(st);
  EXPECT_NE(render(st.error())
                .find("GET /api/v1/inspect/state?at=99: HTTP 404: position 99 "
                      "is past the end"),
            std::string::npos)
      << render(st.error());
  auto v = (*src)->view(inspection::view_kind::agents);
  ASSERT_FALSE(v);
  EXPECT_NE(render(v.error()).find("cannot reach the master at http://m"),
            std::string::npos)
      << render(v.error());
}
