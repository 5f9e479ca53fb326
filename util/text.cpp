#include "util/text.hpp"

namespace det::util {

namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
         || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'
         || c == '~';
}

} // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i]))
      return false;
  return true;
}

bool valid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    unsigned c = *p++;
    if (c < 0x80)
      continue;
    int more = 0;
    unsigned lo = 0x80, hi = 0xBF; // range of the first continuation byte
    if (c >= 0xC2 && c <= 0xDF) {
      more = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      more = 2;
      if (c == 0xE0)
        lo = 0xA0; // overlong
      else if (c == 0xED)
        hi = 0x9F; // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      more = 3;
      if (c == 0xF0)
        lo = 0x90; // overlong
      else if (c == 0xF4)
        hi = 0x8F; // past U+10FFFF
    } else {
      return false;
    }
    if (end - p < more)
      return false;
    if (*p < lo || *p > hi)
      return false;
    for (int i = 1; i < more; ++i)
      if (p[i] < 0x80 || p[i] > 0xBF)
        return false;
    p += more;
  }
  return true;
}

std::string to_hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string percent_encode(std::string_view text, bool keep_slash) {
  static constexpr char digits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() * 3);
  for (unsigned char c : text) {
    if (unreserved(c) || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

std::string percent_decode(std::string_view in, bool plus_as_space) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%' && i + 2 < in.size()) {
      int hi = hex_value(in[i + 1]);
      int lo = hex_value(in[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_as_space && c == '+' ? ' ' : c);
  }
  return out;
}

std::string shell_quote(std::string_view word, bool bare_if_safe) {
  if (bare_if_safe && !word.empty()
      && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                "QRSTUVWXYZ0123456789_-./=:,+@%")
             == std::string_view::npos)
    return std::string{word};
  std::string out = "'";
  for (char c : word)
    out += c == '\'' ? std::string{"'\\''"} : std::string(1, c);
  return out + "'";
}

} // namespace det::util
