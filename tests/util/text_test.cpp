#include "util/text.hpp"

#include <gtest/gtest.h>

using namespace det::util;

TEST(text, iequals_ignores_ascii_case_only) {
  EXPECT_TRUE(iequals("Content-Length", "content-length"));
  EXPECT_FALSE(iequals("Content-Length", "Content-Lengt"));
  EXPECT_FALSE(iequals("\xc3\x84", "\xc3\xa4")); // not ASCII: bytes compared
  EXPECT_TRUE(iequals("", ""));
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

TEST(text, utf8_error_at_finds_the_first_byte_postgresql_would_refuse) {
  EXPECT_EQ(utf8_error_at(""), std::string_view::npos);
  EXPECT_EQ(utf8_error_at("plain ascii"), std::string_view::npos);
  EXPECT_EQ(utf8_error_at("na\xC3\xAFve \xE5\x90\x8D \xF0\x9F\x9A\x80"),
            std::string_view::npos);
  EXPECT_EQ(utf8_error_at("ab\xFF"), 2u);           // never a UTF-8 byte
  EXPECT_EQ(utf8_error_at("a\xC3"), 1u);            // cut short
  EXPECT_EQ(utf8_error_at("\xC0\xAF"), 0u);         // overlong '/'
  EXPECT_EQ(utf8_error_at("\xE0\x80\xAF"), 0u);     // overlong, 3 bytes
  EXPECT_EQ(utf8_error_at("x\xED\xA0\x80"), 1u);    // a surrogate
  EXPECT_EQ(utf8_error_at("\xF4\x90\x80\x80"), 0u); // above U+10FFFF
  EXPECT_EQ(utf8_error_at("\xE2\x82"), 0u);         // 2 of 3 bytes
  EXPECT_EQ(utf8_error_at("\xF4\x8F\xBF\xBF"), std::string_view::npos);
}

TEST(text, text_problem_names_what_is_wrong_and_where) {
  text_rules name;
  EXPECT_EQ(text_problem("alice", name), "");
  EXPECT_EQ(text_problem(std::string_view{"al\0ce", 5}, name),
            "contains a NUL character at byte 2");
  EXPECT_EQ(text_problem("a\nb", name),
            "contains control character U+000A at byte 1");
  EXPECT_EQ(text_problem("\x1b[31m", name),
            "contains control character U+001B at byte 0");
  EXPECT_EQ(text_problem("a\x7f", name),
            "contains control character U+007F at byte 1");
  EXPECT_EQ(text_problem("ok\xFF", name), "is not UTF-8 at byte 2");
  EXPECT_EQ(text_problem(std::string(256, 'a'), name),
            "is 256 bytes long, more than 255");
  EXPECT_EQ(text_problem(std::string(255, 'a'), name), "");
  EXPECT_EQ(text_problem("", text_rules{255, false, false}),
            "must not be empty");
  text_rules prose{4096, true};
  EXPECT_EQ(text_problem("line one\n\tline two\r\n", prose), "");
  EXPECT_EQ(text_problem(std::string_view{"x\0", 2}, prose),
            "contains a NUL character at byte 1");
  EXPECT_EQ(text_problem("bell\a", prose),
            "contains control character U+0007 at byte 4");
}

TEST(text, utf8_with_nul_keeps_nuls_and_replaces_what_is_not_text) {
  EXPECT_EQ(utf8_with_nul(std::string_view{"a\0b\xff", 4}, 100),
            std::string("a\0b\xEF\xBF\xBD", 6));
  EXPECT_EQ(utf8_with_nul("abcdef", 3), "abc");
}

TEST(text, valid_utf8_replaces_what_is_not_text_and_cuts_on_a_boundary) {
  EXPECT_EQ(valid_utf8("fine \xE5\x90\x8D", 100), "fine \xE5\x90\x8D");
  EXPECT_EQ(valid_utf8(std::string_view{"a\0b", 3}, 100), "a\xEF\xBF\xBD"
                                                          "b");
  EXPECT_EQ(valid_utf8("a\xFF\xFE", 100), "a\xEF\xBF\xBD\xEF\xBF\xBD");
  // Cut at 4 bytes: the 3-byte character that would cross it is left out.
  EXPECT_EQ(valid_utf8("abc\xE5\x90\x8D", 4), "abc");
  EXPECT_EQ(valid_utf8(std::string(1 << 20, 'z'), 16), std::string(16, 'z'));
  EXPECT_EQ(utf8_error_at(valid_utf8("\xC0\xAF\xED\xA0\x80ok", 64)),
            std::string_view::npos);
}

TEST(text, fit_text_makes_any_bytes_keep_the_rules) {
  text_rules name;
  EXPECT_EQ(fit_text("bad\nname\x1b", name), "bad\xEF\xBF\xBDname\xEF\xBF\xBD");
  EXPECT_EQ(fit_text("line\nnext", text_rules{64, true}), "line\nnext");
  for (std::string hostile :
       {std::string{"\0\0", 2}, std::string{"\xC0\xAF\x01"},
        std::string(100000, '\x07'), std::string(300, 'x')}) {
    auto fitted = fit_text(hostile, name);
    EXPECT_EQ(text_problem(fitted, name), "") << fitted;
  }
}
