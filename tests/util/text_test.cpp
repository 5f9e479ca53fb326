#include "util/text.hpp"

#include <gtest/gtest.h>

using namespace det::util;

TEST(text, iequals_ignores_ascii_case_only) {
  EXPECT_TRUE(iequals("Content-Length", "content-length"));
  EXPECT_FALSE(iequals("Content-Length", "Content-Lengt"));
  EXPECT_FALSE(iequals("\xc3\x84", "\xc3\xa4")); // not ASCII: bytes compared
  EXPECT_TRUE(iequals("", ""));
}

TEST(text, valid_utf8_accepts_rfc3629_only) {
  EXPECT_TRUE(valid_utf8(""));
  EXPECT_TRUE(valid_utf8("plain ascii"));
  EXPECT_TRUE(valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80"));
  EXPECT_TRUE(valid_utf8("\xf4\x8f\xbf\xbf")); // U+10FFFF
  EXPECT_TRUE(valid_utf8(std::string{"a\0b", 3}));
  EXPECT_FALSE(valid_utf8("\xff"));
  EXPECT_FALSE(valid_utf8("\xc3"));             // cut short
  EXPECT_FALSE(valid_utf8("\xc0\xaf"));         // overlong '/'
  EXPECT_FALSE(valid_utf8("\xe0\x80\xaf"));     // overlong
  EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));     // surrogate
  EXPECT_FALSE(valid_utf8("\xf4\x90\x80\x80")); // past U+10FFFF
  EXPECT_FALSE(valid_utf8("\xe2\x28\xa1"));     // bad continuation
}

TEST(text, to_hex_is_lowercase_two_digits_per_byte) {
  EXPECT_EQ(to_hex(std::string("\x00\x01\xab\xff", 4)), "0001abff");
  EXPECT_EQ(to_hex(""), "");
}

TEST(text, percent_encode_keeps_only_unreserved_characters) {
  // RFC 3986 section 2.3, and the SigV4 examples' forms.
  EXPECT_EQ(percent_encode("AZaz09-_.~"), "AZaz09-_.~");
  EXPECT_EQ(percent_encode("a b+c/d=e&f"), "a%20b%2Bc%2Fd%3De%26f");
  EXPECT_EQ(percent_encode("/a b/", true), "/a%20b/");
  EXPECT_EQ(percent_encode("\xc3\xa9"), "%C3%A9");
}

TEST(text, percent_decode_inverts_encode_and_keeps_malformed_escapes) {
  for (std::string s : {std::string{"a b+c/d"}, std::string{"\xc3\xa9\x01"},
                        std::string("\0x", 2)})
    EXPECT_EQ(percent_decode(percent_encode(s), false), s);
  EXPECT_EQ(percent_decode("a+b%2", true), "a b%2");
  EXPECT_EQ(percent_decode("%zz%41", false), "%zzA");
  EXPECT_EQ(percent_decode("a+b", false), "a+b");
}

TEST(text, shell_quote_makes_one_word_that_sh_reads_back) {
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("plain"), "'plain'");
  EXPECT_EQ(shell_quote("plain", true), "plain");
  EXPECT_EQ(shell_quote("two words", true), "'two words'");
  EXPECT_EQ(shell_quote("", true), "''");
  for (std::string s : {"it's", "$(rm -rf /)", "a\nb", "`x` \"y\" \\z"}) {
    std::string cmd = "printf %s " + shell_quote(s, true);
    FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[256];
    size_t n = 0;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
      out.append(buf, n);
    pclose(p);
    EXPECT_EQ(out, s);
  }
}
