#include "util/text.hpp"

#include <algorithm>
#include <cctype>

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

std::string to_lower(std::string_view text) {
  std::string out{text};
  for (auto& c : out)
    c = lower(c);
  return out;
}

std::string printable_excerpt(std::string_view text, size_t max_bytes) {
  std::string out;
  for (char c : text) {
    if (out.size() >= max_bytes)
      return out + "...";
    out += std::isprint(static_cast<unsigned char>(c)) ? c : ' ';
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i]))
      return false;
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

size_t utf8_char_length(std::string_view text, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = b(i);
  if (c < 0x80)
    return 1;
  size_t n;
  unsigned lo = 0x80, hi = 0xBF; // the valid range of the second byte
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c == 0xE0)
    n = 3, lo = 0xA0; // no overlong three-byte forms
  else if (c == 0xED)
    n = 3, hi = 0x9F; // no surrogates
  else if (c >= 0xE1 && c <= 0xEF)
    n = 3;
  else if (c == 0xF0)
    n = 4, lo = 0x90; // no overlong four-byte forms
  else if (c >= 0xF1 && c <= 0xF3)
    n = 4;
  else if (c == 0xF4)
    n = 4, hi = 0x8F; // nothing above U+10FFFF
  else
    return 0;
  if (i + n > text.size())
    return 0;
  if (b(i + 1) < lo || b(i + 1) > hi)
    return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF)
      return 0;
  return n;
}

size_t utf8_error_at(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    auto n = utf8_char_length(text, i);
    if (n == 0)
      return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string text_problem(std::string_view text, const text_rules& rules) {
  if (text.empty() && !rules.may_be_empty)
    return "must not be empty";
  if (text.size() > rules.max_bytes)
    return "is " + std::to_string(text.size()) + " bytes long, more than "
           + std::to_string(rules.max_bytes);
  if (auto at = utf8_error_at(text); at != std::string_view::npos)
    return "is not UTF-8 at byte " + std::to_string(at);
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == 0)
      return "contains a NUL character at byte " + std::to_string(i);
    bool control = c < 0x20 || c == 0x7F;
    bool allowed = rules.multiline && (c == '\t' || c == '\n' || c == '\r');
    if (control && !allowed) {
      static const char* digits = "0123456789ABCDEF";
      std::string code = "U+00";
      code += digits[c >> 4];
      code += digits[c & 0xF];
      return "contains control character " + code + " at byte "
             + std::to_string(i);
    }
  }
  return {};
}

namespace {

/// Copies `text`, each byte that is not part of a character, and each
/// character `refused` says no to, as U+FFFD; stops before `max_bytes`.
template <class Refused>
std::string replaced(std::string_view text, size_t max_bytes, Refused refused) {
  static constexpr std::string_view replacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  for (size_t i = 0; i < text.size();) {
    auto n = utf8_char_length(text, i);
    bool bad = n == 0 || refused(static_cast<unsigned char>(text[i]));
    auto piece = bad ? replacement : text.substr(i, n);
    if (out.size() + piece.size() > max_bytes)
      break;
    out += piece;
    i += bad ? 1 : n;
  }
  return out;
}

} // namespace

std::string valid_utf8(std::string_view text, size_t max_bytes) {
  return replaced(text, max_bytes, [](unsigned char c) { return c == 0; });
}

std::string utf8_with_nul(std::string_view text, size_t max_bytes) {
  return replaced(text, max_bytes, [](unsigned char) { return false; });
}

std::string fit_text(std::string_view text, const text_rules& rules) {
  return replaced(text, rules.max_bytes, [&](unsigned char c) {
    bool control = c < 0x20 || c == 0x7F;
    bool allowed = rules.multiline && (c == '\t' || c == '\n' || c == '\r');
    return control && !allowed;
  });
}

std::string dns_label_problem(std::string_view name) {
  if (name.empty())
    return "must not be empty";
  if (name.size() > 63)
    return "is " + std::to_string(name.size()) + " bytes long, more than 63";
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  for (size_t i = 0; i < name.size(); ++i)
    if (!alnum(name[i]) && name[i] != '-')
      return "is not a Kubernetes name: only a-z, 0-9 and '-' (byte "
             + std::to_string(i) + ")";
  if (!alnum(name.front()) || !alnum(name.back()))
    return "is not a Kubernetes name: it must start and end with a letter "
           "or digit";
  return {};
}

} // namespace det::util
