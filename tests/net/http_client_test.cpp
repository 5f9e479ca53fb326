// The libcurl client: what it sends, what it gives back, and the form of
// its transport errors (which aws/ reads as AWS errors of kind transport).

#include "net/http_client.hpp"

#include "messages/errc.hpp"
#include "scripted_http_server.hpp"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace det::net {
namespace {

using aws::test::scripted_http_server;
using aws::test::scripted_response;

bool has(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(curl_http_client, a_get_sends_its_headers_and_returns_status_and_body) {
  scripted_http_server server({{200, "{\"ok\":true}"}});
  http_request req;
  req.url = server.url() + "api/v1/x";
  req.headers.emplace_back("Authorization", "Bearer t0k");
  auto resp = make_curl_http_client()->send(req);
  ASSERT_TRUE(resp) << render(resp.error());
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(resp->body, "{\"ok\":true}");
  auto got = server.requests();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(has(got[0], "GET /api/v1/x HTTP/1.1")) << got[0];
  EXPECT_TRUE(has(got[0], "Authorization: Bearer t0k")) << got[0];
}

TEST(curl_http_client, an_error_status_is_a_response_not_an_error) {
  scripted_http_server server({{503, "busy"}});
  http_request req;
  req.method = "POST";
  req.url = server.url();
  req.body = "a=1";
  auto resp = make_curl_http_client()->send(req);
  ASSERT_TRUE(resp) << render(resp.error());
  EXPECT_EQ(resp->status, 503);
  EXPECT_EQ(resp->body, "busy");
  auto got = server.requests();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(has(got[0], "POST / HTTP/1.1")) << got[0];
  EXPECT_TRUE(has(got[0], "a=1")) << got[0];
}

TEST(curl_http_client, no_answer_is_a_transport_error_naming_the_request) {
  // A port that was free a moment ago: nothing listens on it.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  auto port = ntohs(addr.sin_port);
  ::close(fd);
  http_request req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + "/x";
  auto resp = make_curl_http_client()->send(req);
  ASSERT_FALSE(resp);
  EXPECT_EQ(code_of(resp.error()), errc::remote_error);
  auto text = render(resp.error());
  EXPECT_TRUE(has(text, "[transport curl:")) << text;
  EXPECT_TRUE(has(text, "GET " + req.url)) << text;
}

TEST(http_response, header_names_match_case_insensitively) {
  http_response r;
  r.headers = {{"Content-Type", "text/xml"}, {"x-amz-id", "1"}};
  EXPECT_EQ(r.header("content-type"), "text/xml");
  EXPECT_EQ(r.header("X-Amz-Id"), "1");
  EXPECT_EQ(r.header("missing"), "");
}

TEST(parse_url, splits_an_absolute_url_and_refuses_others) {
  auto u = parse_url("https://EC2.example.com:8443/a/b?x=1");
  ASSERT_TRUE(u) << render(u.error());
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->host, "ec2.example.com");
  EXPECT_EQ(u->port, 8443);
  EXPECT_EQ(u->path, "/a/b");
  EXPECT_EQ(u->host_header(), "ec2.example.com:8443");
  EXPECT_FALSE(parse_url("ftp://x/"));
  EXPECT_FALSE(parse_url("example.com/"));
}

} // namespace
} // namespace det::net
