#include "conf/duration.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace det::conf {

namespace {

// Milliseconds per unit, or a negative number for an unknown unit.
double unit_ms(std::string_view u) {
  if (u == "h")
    return 3600e3;
  if (u == "m")
    return 60e3;
  if (u == "s")
    return 1e3;
  if (u == "ms")
    return 1;
  if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs")
    return 1e-3;
  if (u == "ns")
    return 1e-6;
  return -1;
}

caf::error bad(std::string why) {
  return make_error(errc::invalid_argument, std::move(why));
}

} // namespace

caf::expected<std::chrono::milliseconds> parse_duration(std::string_view text) {
  std::string_view s = text;
  if (s.empty())
    return bad("empty duration");
  bool negative = false;
  if (s.front() == '+' || s.front() == '-') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0")
    return std::chrono::milliseconds{0};
  if (s.empty())
    return bad("expected a duration such as \"5m\", \"30s\" or \"1h30m\"");
  double total = 0;
  while (!s.empty()) {
    size_t i = 0;
    bool digits = false;
    while (i < s.size()
           && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
      digits = digits || s[i] != '.';
      ++i;
    }
    if (!digits)
      return bad("expected a duration such as \"5m\", \"30s\" or \"1h30m\"");
    std::string num{s.substr(0, i)};
    if (num.find('.') != num.rfind('.'))
      return bad("malformed number '" + num + "'");
    s.remove_prefix(i);
    size_t j = 0;
    while (j < s.size() && !std::isdigit(static_cast<unsigned char>(s[j]))
           && s[j] != '.')
      ++j;
    if (j == 0)
      return bad("missing unit in duration (use h, m, s or ms)");
    std::string unit{s.substr(0, j)};
    auto ms = unit_ms(unit);
    if (ms < 0)
      return bad("unknown unit '" + unit + "' in duration (use h, m, s or ms)");
    s.remove_prefix(j);
    total += std::stod(num) * ms;
  }
  if (total > 1e15)
    return bad("duration out of range");
  auto v = static_cast<int64_t>(std::floor(total + 1e-6));
  return std::chrono::milliseconds{negative ? -v : v};
}

std::string format_duration(std::chrono::milliseconds d) {
  int64_t ms = d.count();
  if (ms == 0)
    return "0s";
  std::string out;
  if (ms < 0) {
    out = "-";
    ms = -ms;
  }
  if (ms % 1000 != 0 && ms < 1000)
    return out + std::to_string(ms) + "ms";
  int64_t h = ms / 3600000;
  int64_t m = ms / 60000 % 60;
  int64_t s = ms / 1000 % 60;
  int64_t rest = ms % 1000;
  if (h)
    out += std::to_string(h) + "h";
  if (m)
    out += std::to_string(m) + "m";
  if (s || rest) {
    out += std::to_string(s);
    if (rest) {
      char buf[8];
      std::snprintf(buf, sizeof buf, ".%03d", static_cast<int>(rest));
      std::string frac = buf;
      while (frac.back() == '0')
        frac.pop_back();
      out += frac;
    }
    out += "s";
  }
  return out;
}

} // namespace det::conf
