#include "api/codec.hpp"

#include <gtest/gtest.h>

#include <random>

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

// RFC 4648's vectors, the forms the decoder also takes (URL-safe, no
// padding, line breaks anywhere), what it refuses, and is_base64 agreeing
// with it on every one of them and on random text.
TEST(base64, rfc_vectors_accepted_forms_and_refusals) {
  const std::pair<const char*, const char*> rfc[] = {{"", ""},
                                                     {"f", "Zg=="},
                                                     {"fo", "Zm8="},
                                                     {"foo", "Zm9v"},
                                                     {"foob", "Zm9vYg=="},
                                                     {"fooba", "Zm9vYmE="},
                                                     {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : rfc) {
    EXPECT_EQ(base64_encode(plain), coded);
    EXPECT_EQ(base64_decode(coded).value_or("?"), plain);
  }
  EXPECT_EQ(base64_decode("Zm9v\r\nYmFy").value_or("?"), "foobar");
  EXPECT_EQ(base64_decode("Zm\n9vYg").value_or("?"), "foob");
  EXPECT_EQ(base64_decode("-_-_").value_or("?"), base64_decode("+/+/").value());
  for (const char* bad :
       {"Zg=a", "Z", "Zm9vY", "Zg===", "Zm 9v", "\xff\xfe\xfd\xfc"}) {
    EXPECT_FALSE(base64_decode(bad).has_value()) << bad;
    EXPECT_FALSE(det::is_base64(bad)) << bad;
  }
  const std::string with_nul{"Zm9v\0AAA", 8};
  EXPECT_FALSE(base64_decode(with_nul).has_value());
  EXPECT_FALSE(det::is_base64(with_nul));
  std::mt19937 rng{7};
  const std::string chars = "AZaz09+/=\n-_$ ";
  for (int i = 0; i < 2000; ++i) {
    std::string t;
    for (size_t n = rng() % 12; n > 0; --n)
      t += chars[rng() % chars.size()];
    EXPECT_EQ(det::is_base64(t), base64_decode(t).has_value()) << t;
  }
  std::string big;
  for (int i = 0; i < 100000; ++i)
    big += static_cast<char>(rng());
  EXPECT_EQ(base64_decode(base64_encode(big)).value_or(""), big);
}

TEST(bearer_token, reads_only_the_bearer_scheme) {
  EXPECT_EQ(bearer_token(std::string{"Bearer abc"}), "abc");
  EXPECT_EQ(bearer_token(std::string{"Basic abc"}), "");
  EXPECT_EQ(bearer_token(std::nullopt), "");
}
