#pragma once

// The text encodings every floor uses, one implementation each: hex,
// percent-encoding (RFC 3986), shell quoting, ASCII case-insensitive
// comparison (HTTP header names), and the checks that make client text fit
// to keep (UTF-8, no NUL or control characters, a length limit). Pure
// functions, no allocation beyond their results.

#include <string>
#include <string_view>

namespace det::util {

/// The value of hex digit `c`, or -1.
[[nodiscard]] inline int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/// True when `a` and `b` are equal ignoring ASCII case.
[[nodiscard]] bool iequals(std::string_view a, std::string_view b);

/// True when `s` starts with `prefix`.
[[nodiscard]] inline bool starts_with(std::string_view s,
                                      std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// True when `s` ends with `suffix`.
[[nodiscard]] inline bool ends_with(std::string_view s,
                                    std::string_view suffix) {
  return s.size() >= suffix.size()
         && s.substr(s.size() - suffix.size()) == suffix;
}

/// `s` without the spaces, tabs, carriage returns and line feeds (and
/// vertical tabs and form feeds) at its ends.
[[nodiscard]] inline std::string_view trim(std::string_view s) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v'
           || c == '\f';
  };
  while (!s.empty() && space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && space(s.back()))
    s.remove_suffix(1);
  return s;
}

/// `text` with ASCII letters lowercased; other bytes as they are.
[[nodiscard]] std::string to_lower(std::string_view text);

/// At most `max_bytes` of `text` with every unprintable byte (control
/// characters, bytes above 0x7e) shown as a space, and "..." after a cut:
/// a bounded excerpt of a body to quote in an error.
[[nodiscard]] std::string printable_excerpt(std::string_view text,
                                            size_t max_bytes = 160);

/// Lowercase hex of `bytes` ("\x01\xff" -> "01ff").
[[nodiscard]] std::string to_hex(std::string_view bytes);

/// Percent-encodes every byte but RFC 3986's unreserved characters
/// (A-Z a-z 0-9 - _ . ~), and '/' when `keep_slash`, with uppercase hex:
/// the form SigV4 signs and a query value needs.
[[nodiscard]] std::string percent_encode(std::string_view text,
                                         bool keep_slash = false);

/// Decodes %XX escapes (a malformed escape is kept as written) and, when
/// `plus_as_space`, '+' as ' ' (form and query encoding).
[[nodiscard]] std::string percent_decode(std::string_view text,
                                         bool plus_as_space);

/// `word` as one sh word in single quotes ('\'' inside). With
/// `bare_if_safe`, a non-empty word of only [A-Za-z0-9_-./=:,+@%] is left
/// as it is.
[[nodiscard]] std::string shell_quote(std::string_view word,
                                      bool bare_if_safe = false);

/// The length in bytes of the UTF-8 character at `text[i]` (1 to 4), or 0
/// when the bytes there are not one (see utf8_error_at for what counts).
[[nodiscard]] size_t utf8_char_length(std::string_view text, size_t i);

/// Where `text` stops being UTF-8 (a byte offset), or npos when it all is.
/// Strict: no overlong forms, no surrogates (U+D800..U+DFFF), nothing above
/// U+10FFFF. PostgreSQL refuses exactly these in text and jsonb.
[[nodiscard]] size_t utf8_error_at(std::string_view text);

/// What a piece of client text may hold.
struct text_rules {
  /// The most bytes it may take (a name in an index row stays far below
  /// the ~2,700 bytes PostgreSQL can index).
  size_t max_bytes = 255;
  /// Tab, line feed and carriage return allowed (descriptions, messages);
  /// other control characters (U+0000..U+001F, U+007F) never are.
  bool multiline = false;
  /// The empty string allowed.
  bool may_be_empty = true;
};

/// Why `text` breaks `rules`, as a phrase to follow a field's name ("is
/// not UTF-8 at byte 3", "contains a NUL character at byte 0", "contains
/// control character U+001B at byte 5", "is 1048576 bytes long, more than
/// 255", "must not be empty"); "" when it keeps them.
[[nodiscard]] std::string text_problem(std::string_view text,
                                       const text_rules& rules);

/// `text` made fit to show and store: every byte that is not part of a
/// UTF-8 character and every NUL becomes U+FFFD, and the result is cut at
/// `max_bytes` on a character boundary. For text we keep but do not
/// refuse (a trial's log lines).
[[nodiscard]] std::string valid_utf8(std::string_view text, size_t max_bytes);

/// Like valid_utf8, but a NUL stays: for text held in memory and served
/// only as JSON (where it is "\u0000"), never stored in the event log (a
/// trial's log lines as `det trial logs` shows them, NULs and all).
[[nodiscard]] std::string utf8_with_nul(std::string_view text,
                                        size_t max_bytes);

/// `text` made to keep `rules`: like valid_utf8, and each control
/// character the rules refuse becomes U+FFFD too. For text the master
/// writes itself that may quote a client (a reason naming a bad value).
[[nodiscard]] std::string fit_text(std::string_view text,
                                   const text_rules& rules);

/// Why `name` is not a Kubernetes DNS-1123 label (a namespace's name: at
/// most 63 bytes of a-z, 0-9 and '-', starting and ending with a letter or
/// digit), as a phrase to follow the field's name; "" when it is one.
[[nodiscard]] std::string dns_label_problem(std::string_view name);

} // namespace det::util
