// http::read_request: the steps a server session takes to read a request,
// over bytes (the fuzzer's and these tests' way in).

#include "http/request_reader.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det::http;
using kind = read_result::kind;

namespace {

server_config limits() {
  server_config cfg;
  cfg.body_limit = 1000;
  cfg.header_limit = 512;
  // As det-master: unauthenticated requests get a small limit.
  cfg.body_limit_for = [](std::string_view, std::string_view,
                          bool authorized) -> size_t {
    return authorized ? 1000 : 10;
  };
  return cfg;
}

} // namespace

TEST(request_reader, a_request_is_read_with_path_query_and_headers) {
  auto r = read_request("GET /api/v1/experiments/?limit=5&x=a+b HTTP/1.1\r\n"
                        "Host: h\r\nAuthorization: Bearer t\r\n\r\n",
                        limits());
  ASSERT_EQ(r.what, kind::request);
  EXPECT_EQ(r.request.method, "GET");
  EXPECT_EQ(r.request.path, "/api/v1/experiments");
  EXPECT_EQ(r.request.query.get("limit"), "5");
  EXPECT_EQ(r.request.query.get("x"), "a b");
  EXPECT_EQ(r.request.headers.get("authorization"), "Bearer t");
  EXPECT_TRUE(r.keep_alive);
  EXPECT_FALSE(r.upgrade);
}

TEST(request_reader, pipelined_requests_are_read_one_at_a_time) {
  std::string two = "POST /a HTTP/1.1\r\nAuthorization: x\r\n"
                    "Content-Length: 3\r\n\r\nabc"
                    "GET /b HTTP/1.1\r\nConnection: close\r\n\r\n";
  auto first = read_request(two, limits());
  ASSERT_EQ(first.what, kind::request);
  EXPECT_EQ(first.request.body, "abc");
  auto second =
      read_request(std::string_view{two}.substr(first.consumed), limits());
  ASSERT_EQ(second.what, kind::request);
  EXPECT_EQ(second.request.path, "/b");
  EXPECT_FALSE(second.keep_alive);
}

TEST(request_reader, a_chunked_body_over_the_routes_limit_is_refused_413) {
  auto r = read_request("POST /api/v1/auth/login HTTP/1.1\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n"
                        "8\r\n01234567\r\n8\r\n01234567\r\n0\r\n\r\n",
                        limits());
  ASSERT_EQ(r.what, kind::refused);
  EXPECT_EQ(r.refusal.status, 413);
  auto declared =
      read_request("POST /x HTTP/1.1\r\nContent-Length: 11\r\n\r\n", limits());
  ASSERT_EQ(declared.what, kind::refused) << "refused before the body";
  EXPECT_EQ(declared.refusal.status, 413);
  auto ok =
      read_request("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "4\r\nabcd\r\n0\r\n\r\n",
                   limits());
  ASSERT_EQ(ok.what, kind::request);
  EXPECT_EQ(ok.request.body, "abcd");
}

TEST(request_reader, oversized_headers_are_431_and_garbage_is_400) {
  auto big = read_request(
      "GET / HTTP/1.1\r\nX: " + std::string(600, 'a') + "\r\n\r\n", limits());
  ASSERT_EQ(big.what, kind::refused);
  EXPECT_EQ(big.refusal.status, 431);
  auto bad = read_request("GET / HTTP/9\r\n\r\n", limits());
  ASSERT_EQ(bad.what, kind::refused);
  EXPECT_EQ(bad.refusal.status, 400);
}

TEST(request_reader, a_request_cut_short_is_incomplete_and_gets_no_answer) {
  for (std::string cut : {"", "GET / HT", "GET / HTTP/1.1\r\nHost: x\r\n",
                          "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab",
                          "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
                          "\r\n3\r\nab"}) {
    auto r = read_request(cut, limits());
    EXPECT_EQ(r.what, kind::incomplete) << cut;
  }
}

TEST(request_reader, an_upgrade_is_flagged) {
  auto r = read_request("GET /agents/ws HTTP/1.1\r\nHost: x\r\n"
                        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n",
                        limits());
  ASSERT_EQ(r.what, kind::request);
  EXPECT_TRUE(r.upgrade);
}
