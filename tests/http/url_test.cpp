#include "http/url.hpp"
#include "http/wire_format.hpp"

#include <gtest/gtest.h>

using namespace det::http;

TEST(url, percent_decoding_reads_escapes_and_plus_only_in_queries) {
  EXPECT_EQ(percent_decode("a%20b+c", true), "a b c");
  EXPECT_EQ(percent_decode("a%20b+c", false), "a b+c");
  EXPECT_EQ(percent_decode("%2Fx%2f", false), "/x/");
}

TEST(url, malformed_escapes_are_kept_literally) {
  EXPECT_EQ(percent_decode("100%", true), "100%");
  EXPECT_EQ(percent_decode("%zz%4", true), "%zz%4");
}

TEST(url, repeated_query_keys_keep_every_value_in_order) {
  auto q = parse_query("levels=LOG_LEVEL_INFO&x=1&levels=LOG_LEVEL_ERROR");
  EXPECT_EQ(q.get_all("levels"),
            (std::vector<std::string>{"LOG_LEVEL_INFO", "LOG_LEVEL_ERROR"}));
  EXPECT_EQ(q.get("levels"), "LOG_LEVEL_INFO");
  EXPECT_EQ(q.get("x"), "1");
  EXPECT_FALSE(q.get("y").has_value());
}

TEST(url, query_keys_without_values_and_empty_pieces_are_tolerated) {
  auto q = parse_query("follow&&a=&b=x%3Dy");
  EXPECT_TRUE(q.contains("follow"));
  EXPECT_EQ(q.get("follow"), "");
  EXPECT_EQ(q.get("a"), "");
  EXPECT_EQ(q.get("b"), "x=y");
  EXPECT_EQ(q.entries().size(), 3u);
}

TEST(url, trailing_slashes_are_stripped_but_the_root_stays) {
  EXPECT_EQ(normalize_path("/api/v1/experiments/"), "/api/v1/experiments");
  EXPECT_EQ(normalize_path("/api/v1//"), "/api/v1");
  EXPECT_EQ(normalize_path("/"), "/");
  EXPECT_EQ(normalize_path(""), "/");
}

TEST(url, a_target_splits_into_normalised_path_and_decoded_query) {
  std::string path;
  query_params q;
  split_target("/api/v1/trials/7/logs/?follow=true&tail=a+b", path, q);
  EXPECT_EQ(path, "/api/v1/trials/7/logs");
  EXPECT_EQ(q.get("follow"), "true");
  EXPECT_EQ(q.get("tail"), "a b");
}

TEST(headers, names_compare_case_insensitively) {
  header_map h;
  h.add("Content-Type", "application/json");
  h.add("X-Many", "1");
  h.add("x-many", "2");
  EXPECT_EQ(h.get("content-type"), "application/json");
  EXPECT_EQ(h.get_all("X-MANY"), (std::vector<std::string>{"1", "2"}));
  h.set("X-MANY", "3");
  EXPECT_EQ(h.get_all("x-many"), (std::vector<std::string>{"3"}));
}

TEST(wire_format, a_response_carries_length_connection_and_default_type) {
  http_response r;
  r.status = 404;
  r.body = "{}";
  auto s = serialize_response(r, true, "det-master");
  EXPECT_EQ(s.rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u);
  EXPECT_NE(s.find("Content-Type: application/json\r\n"), std::string::npos);
  EXPECT_NE(s.find("Content-Length: 2\r\n"), std::string::npos);
  EXPECT_NE(s.find("Connection: keep-alive\r\n"), std::string::npos);
  EXPECT_EQ(s.substr(s.size() - 6), "\r\n\r\n{}");
}

TEST(wire_format, header_values_cannot_inject_lines) {
  header_map h;
  h.add("X-Evil", "a\r\nSet-Cookie: x");
  auto s = serialize_head(200, h, head_options{});
  EXPECT_EQ(s.find("\r\nSet-Cookie"), std::string::npos);
}

TEST(wire_format, chunks_are_hex_framed_and_the_last_chunk_is_zero) {
  EXPECT_EQ(chunk_frame(std::string(26, 'x')),
            "1a\r\n" + std::string(26, 'x') + "\r\n");
  EXPECT_EQ(chunk_frame(""), "");
  EXPECT_EQ(last_chunk(), "0\r\n\r\n");
}
