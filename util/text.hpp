#pragma once

// The text encodings every floor uses, one implementation each: UTF-8
// validity, hex,
// percent-encoding (RFC 3986), shell quoting, and ASCII case-insensitive
// comparison (HTTP header names). Pure functions, no allocation beyond
// their results.

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

/// True when `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no
/// surrogates, nothing past U+10FFFF): what nlohmann-json can serialise
/// and PostgreSQL's JSONB can hold.
[[nodiscard]] bool valid_utf8(std::string_view text);

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

} // namespace det::util
