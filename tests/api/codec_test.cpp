#include "api/codec.hpp"

#include <gtest/gtest.h>

using namespace det::api;

TEST(session_tokens, a_token_opens_only_its_own_allocation) {
  session_tokens t{"secret"};
  auto tok = t.token_for("1.1");
  EXPECT_TRUE(t.valid("1.1", tok));
  EXPECT_FALSE(t.valid("2.1", tok));
  EXPECT_FALSE(t.valid("1.1", ""));
  EXPECT_EQ(tok.size(), 64u);
}

TEST(session_tokens, another_cluster_secret_gives_another_token) {
  EXPECT_NE(session_tokens{"a"}.token_for("1.1"),
            session_tokens{"b"}.token_for("1.1"));
}

TEST(base64, round_trips_every_length) {
  std::string s;
  for (int i = 0; i < 20; ++i) {
    auto back = base64_decode(base64_encode(s));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, s);
    s += static_cast<char>(i * 37);
  }
  EXPECT_FALSE(base64_decode("a$b=").has_value());
}

TEST(bearer_token, reads_only_the_bearer_scheme) {
  EXPECT_EQ(bearer_token(std::string{"Bearer abc"}), "abc");
  EXPECT_EQ(bearer_token(std::string{"Basic abc"}), "");
  EXPECT_EQ(bearer_token(std::nullopt), "");
}
