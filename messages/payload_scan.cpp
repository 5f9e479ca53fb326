#include "messages/payload_scan.hpp"

#include "util/text.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace det::payload_scan {

namespace {

using nlohmann::json;

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Code point `cp` (not a surrogate, at most U+10FFFF) as UTF-8.
void append_utf8(std::string& out, unsigned cp) {
  auto byte = [&](unsigned b) { out.push_back(static_cast<char>(b)); };
  if (cp < 0x80) {
    byte(cp);
  } else if (cp < 0x800) {
    byte(0xC0 | (cp >> 6));
    byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    byte(0xE0 | (cp >> 12));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  } else {
    byte(0xF0 | (cp >> 18));
    byte(0x80 | ((cp >> 12) & 0x3F));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  }
}

struct number {
  enum kind_t { unsigned_int, signed_int, floating } kind = unsigned_int;
  uint64_t u = 0;
  int64_t i = 0;
  double d = 0;
};

// A strict reader over [p, end). Every method returns false at the first
// thing it does not take, leaving the cursor anywhere.
struct cursor {
  const char* p;
  const char* end;

  explicit cursor(std::string_view v) : p(v.data()), end(v.data() + v.size()) {}

  bool at_end() const { return p == end; }
  void ws() {
    while (p != end && is_ws(*p))
      ++p;
  }
  bool eat(char c) {
    if (p == end || *p != c)
      return false;
    ++p;
    return true;
  }
  bool literal(const char* word) {
    auto n = std::strlen(word);
    if (static_cast<size_t>(end - p) < n || std::memcmp(p, word, n) != 0)
      return false;
    p += n;
    return true;
  }

  // Four hex digits of a \u escape.
  bool hex4(unsigned& out) {
    if (end - p < 4)
      return false;
    out = 0;
    for (int k = 0; k < 4; ++k) {
      int h = util::hex_value(p[k]);
      if (h < 0)
        return false;
      out = out * 16 + static_cast<unsigned>(h);
    }
    p += 4;
    return true;
  }

  // A string: text that is UTF-8 as util::utf8_char_length counts it (the
  // tree's lexer checks the same ranges) and escapes, a surrogate pair
  // included. Anything else is left to the tree, which refuses it.
  bool string(std::string& out) {
    if (!eat('"'))
      return false;
    out.clear();
    for (;;) {
      const char* run = p;
      for (;;) {
        while (p != end && *p != '"' && *p != '\\'
               && static_cast<unsigned char>(*p) >= 0x20
               && static_cast<unsigned char>(*p) < 0x80)
          ++p;
        if (p == end || static_cast<unsigned char>(*p) < 0x80)
          break;
        auto n = util::utf8_char_length(
            std::string_view{p, static_cast<size_t>(end - p)}, 0);
        if (n == 0)
          return false; // not UTF-8
        p += n;
      }
      out.append(run, static_cast<size_t>(p - run));
      if (p == end)
        return false;
      if (*p == '"') {
        ++p;
        return true;
      }
      if (*p != '\\')
        return false; // a control character
      ++p;
      if (p == end)
        return false;
      char c = *p++;
      switch (c) {
      case '"':
      case '\\':
      case '/':
        out.push_back(c);
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        unsigned cp = 0;
        if (!hex4(cp))
          return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          // Only as the first half of a pair, as the tree takes it.
          unsigned low = 0;
          if (!literal("\\u") || !hex4(low) || low < 0xDC00 || low > 0xDFFF)
            return false;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return false; // a second half alone
        }
        append_utf8(out, cp);
        break;
      }
      default:
        return false;
      }
    }
  }

  // JSON's number grammar; integers as nlohmann keeps them (unsigned when
  // not negative), floating point correctly rounded as strtod rounds.
  bool num(number& out) {
    const char* start = p;
    bool neg = eat('-');
    if (p == end || !is_digit(*p))
      return false;
    if (*p == '0')
      ++p;
    else
      while (p != end && is_digit(*p))
        ++p;
    const char* int_end = p;
    bool floating = false;
    if (p != end && *p == '.') {
      ++p;
      if (p == end || !is_digit(*p))
        return false;
      while (p != end && is_digit(*p))
        ++p;
      floating = true;
    }
    if (p != end && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p != end && (*p == '+' || *p == '-'))
        ++p;
      if (p == end || !is_digit(*p))
        return false;
      while (p != end && is_digit(*p))
        ++p;
      floating = true;
    }
    if (floating) {
      double d = 0;
      auto r = std::from_chars(start, p, d);
      if (r.ec != std::errc{} || r.ptr != p || !std::isfinite(d))
        return false;
      out.kind = number::floating;
      out.d = d;
      return true;
    }
    uint64_t mag = 0;
    for (const char* q = start + (neg ? 1 : 0); q != int_end; ++q) {
      auto digit = static_cast<uint64_t>(*q - '0');
      if (mag > (std::numeric_limits<uint64_t>::max() - digit) / 10)
        return false; // nlohmann makes it a double
      mag = mag * 10 + digit;
    }
    if (!neg) {
      out.kind = number::unsigned_int;
      out.u = mag;
      return true;
    }
    constexpr auto min_mag = static_cast<uint64_t>(1) << 63;
    if (mag > min_mag)
      return false; // nlohmann makes it a double
    out.kind = number::signed_int;
    out.i = mag == min_mag ? std::numeric_limits<int64_t>::min()
                           : -static_cast<int64_t>(mag);
    return true;
  }

  // Any value, as nlohmann's parser builds it (a repeated key: the last
  // value wins, as there).
  bool value(json& out, int depth) {
    if (p == end)
      return false;
    switch (*p) {
    case '{': {
      if (depth >= max_depth)
        return false;
      ++p;
      out = json::object();
      auto& obj = out.get_ref<json::object_t&>();
      ws();
      if (eat('}'))
        return true;
      std::string key;
      for (;;) {
        if (!string(key))
          return false;
        ws();
        if (!eat(':'))
          return false;
        ws();
        json item;
        if (!value(item, depth + 1))
          return false;
        obj.insert_or_assign(std::move(key), std::move(item));
        ws();
        if (eat('}'))
          return true;
        if (!eat(','))
          return false;
        ws();
      }
    }
    case '[': {
      if (depth >= max_depth)
        return false;
      ++p;
      out = json::array();
      auto& arr = out.get_ref<json::array_t&>();
      ws();
      if (eat(']'))
        return true;
      for (;;) {
        arr.emplace_back();
        if (!value(arr.back(), depth + 1))
          return false;
        ws();
        if (eat(']'))
          return true;
        if (!eat(','))
          return false;
        ws();
      }
    }
    case '"': {
      std::string s;
      if (!string(s))
        return false;
      out = std::move(s);
      return true;
    }
    case 't':
      out = true;
      return literal("true");
    case 'f':
      out = false;
      return literal("false");
    case 'n':
      out = nullptr;
      return literal("null");
    default: {
      number n;
      if (!num(n))
        return false;
      if (n.kind == number::unsigned_int)
        out = n.u;
      else if (n.kind == number::signed_int)
        out = n.i;
      else
        out = n.d;
      return true;
    }
    }
  }

  // Skips one value without checking it (split_object's members are read
  // strictly later): strings, brackets, or a run of scalar characters.
  bool skip() {
    if (p == end)
      return false;
    if (*p == '"')
      return skip_string();
    if (*p == '{' || *p == '[') {
      int depth = 0;
      while (p != end) {
        char c = *p;
        if (c == '"') {
          if (!skip_string())
            return false;
          continue;
        }
        ++p;
        if (c == '{' || c == '[')
          ++depth;
        else if ((c == '}' || c == ']') && --depth == 0)
          return true;
      }
      return false;
    }
    const char* start = p;
    while (p != end
           && (is_digit(*p) || (*p >= 'a' && *p <= 'z') || *p == '-'
               || *p == '+' || *p == '.' || *p == 'E'))
      ++p;
    return p != start;
  }
  bool skip_string() {
    ++p;
    while (p != end) {
      char c = *p++;
      if (c == '"')
        return true;
      if (c == '\\') {
        if (p == end)
          return false;
        ++p;
      }
    }
    return false;
  }
};

template <class Read> bool whole(std::string_view v, Read&& read) {
  cursor c{v};
  return read(c) && c.at_end();
}

bool read_integer(std::string_view v, int64_t& out) {
  number n;
  if (!whole(v, [&](cursor& c) { return c.num(n); }))
    return false;
  // As nlohmann's get<int64_t>() converts an unsigned value: a cast.
  if (n.kind == number::unsigned_int)
    out = static_cast<int64_t>(n.u);
  else if (n.kind == number::signed_int)
    out = n.i;
  else
    return false;
  return true;
}

} // namespace

member* members::take(const char* key) {
  for (size_t k = 0; k < size; ++k)
    if (!items[k].used && items[k].key == key) {
      items[k].used = true;
      return &items[k];
    }
  return nullptr;
}

bool members::all_used() const {
  for (size_t k = 0; k < size; ++k)
    if (!items[k].used)
      return false;
  return true;
}

bool split_object(std::string_view text, members& out) {
  out.size = 0;
  cursor c{text};
  c.ws();
  if (!c.eat('{'))
    return false;
  c.ws();
  if (!c.eat('}')) {
    for (;;) {
      if (!c.eat('"'))
        return false;
      const char* key = c.p;
      while (c.p != c.end && *c.p != '"' && *c.p != '\\'
             && static_cast<unsigned char>(*c.p) >= 0x20
             && static_cast<unsigned char>(*c.p) < 0x80)
        ++c.p;
      if (!c.eat('"'))
        return false;
      std::string_view k{key, static_cast<size_t>(c.p - 1 - key)};
      for (size_t i = 0; i < out.size; ++i)
        if (out.items[i].key == k)
          return false; // the tree keeps the last; rare enough to leave it
      if (out.size == members::capacity)
        return false;
      c.ws();
      if (!c.eat(':'))
        return false;
      c.ws();
      const char* value = c.p;
      if (!c.skip())
        return false;
      out.items[out.size++] = {
          k, std::string_view{value, static_cast<size_t>(c.p - value)}, false};
      c.ws();
      if (c.eat('}'))
        break;
      if (!c.eat(','))
        return false;
      c.ws();
    }
  }
  c.ws();
  return c.at_end();
}

bool split_array(std::string_view text, std::vector<std::string_view>& out) {
  out.clear();
  cursor c{text};
  if (!c.eat('['))
    return false;
  c.ws();
  if (!c.eat(']')) {
    for (;;) {
      const char* item = c.p;
      if (!c.skip())
        return false;
      out.emplace_back(item, static_cast<size_t>(c.p - item));
      c.ws();
      if (c.eat(']'))
        break;
      if (!c.eat(','))
        return false;
      c.ws();
    }
  }
  return c.at_end();
}

bool is_null(std::string_view v) {
  return v == "null";
}

bool read(std::string_view v, std::string& out) {
  return whole(v, [&](cursor& c) { return c.string(out); });
}

bool read(std::string_view v, int64_t& out) {
  return read_integer(v, out);
}

bool read(std::string_view v, int32_t& out) {
  int64_t x = 0;
  if (!read_integer(v, x) || x < std::numeric_limits<int32_t>::min()
      || x > std::numeric_limits<int32_t>::max())
    return false;
  out = static_cast<int32_t>(x);
  return true;
}

bool read(std::string_view v, double& out) {
  number n;
  if (!whole(v, [&](cursor& c) { return c.num(n); }))
    return false;
  if (n.kind == number::unsigned_int)
    out = static_cast<double>(n.u);
  else if (n.kind == number::signed_int)
    out = static_cast<double>(n.i);
  else
    out = n.d;
  return true;
}

bool read(std::string_view v, bool& out) {
  if (v == "true")
    out = true;
  else if (v == "false")
    out = false;
  else
    return false;
  return true;
}

bool read(std::string_view v, nlohmann::json& out) {
  return whole(v, [&](cursor& c) { return c.value(out, 0); });
}

bool read(std::string_view v, std::vector<std::string>& out) {
  return whole(v, [&](cursor& c) {
    out.clear();
    if (!c.eat('['))
      return false;
    c.ws();
    if (c.eat(']'))
      return true;
    for (;;) {
      out.emplace_back();
      if (!c.string(out.back()))
        return false;
      c.ws();
      if (c.eat(']'))
        return true;
      if (!c.eat(','))
        return false;
      c.ws();
    }
  });
}

bool read(std::string_view v, std::vector<int64_t>& out) {
  return whole(v, [&](cursor& c) {
    out.clear();
    if (!c.eat('['))
      return false;
    c.ws();
    if (c.eat(']'))
      return true;
    for (;;) {
      number n;
      if (!c.num(n) || n.kind == number::floating)
        return false;
      out.push_back(n.kind == number::unsigned_int ? static_cast<int64_t>(n.u)
                                                   : n.i);
      c.ws();
      if (c.eat(']'))
        return true;
      if (!c.eat(','))
        return false;
      c.ws();
    }
  });
}

} // namespace det::payload_scan
