#include "deployer/value_checks.hpp"

#include "conf/duration.hpp"
#include "messages/errc.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

namespace det::deploy {

caf::error bad(const std::string& msg) {
  return make_error(errc::invalid_argument, msg);
}

std::string join(const std::vector<std::string>& items,
                 const std::string& sep) {
  std::string out;
  for (const auto& s : items)
    out += (out.empty() ? "" : sep) + s;
  return out;
}

caf::error one_of(const std::string& flag, const std::string& value,
                  const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end())
    return caf::none;
  return bad(flag + ": unknown value '" + value
             + "'; allowed: " + join(allowed));
}

caf::error matches(const std::string& flag, const std::string& value,
                   const char* pattern, const std::string& what) {
  if (std::regex_match(value, std::regex(pattern)))
    return caf::none;
  return bad(flag + ": '" + value + "' is not " + what);
}

caf::error to_int(const std::string& flag, const std::string& value, int min,
                  int& out) {
  if (value.empty() || value.size() > 9
      || !std::all_of(value.begin(), value.end(),
                      [](unsigned char c) { return std::isdigit(c); }))
    return bad(flag + ": '" + value + "' is not a whole number");
  out = std::stoi(value);
  if (out < min)
    return bad(flag + ": must be at least " + std::to_string(min) + ", not "
               + value);
  return caf::none;
}

// Go durations ("10m", "1h30m"); a bare number is seconds.
caf::error to_duration(const std::string& flag, const std::string& value,
                       std::chrono::milliseconds& out) {
  bool bare = !value.empty()
              && std::all_of(value.begin(), value.end(),
                             [](unsigned char c) { return std::isdigit(c); });
  auto d = conf::parse_duration(bare ? value + "s" : value);
  if (!d)
    return bad(flag + ": '" + value + "' is not a duration like 10m, 90s or "
               + "1h30m (" + render(d.error()) + ")");
  out = *d;
  return caf::none;
}

caf::error check_cidr(const std::string& flag, const std::string& value) {
  std::smatch m;
  static const std::regex rx(
      R"(^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})/(\d{1,2})$)");
  if (std::regex_match(value, m, rx)) {
    bool ok = std::stoi(m[5]) <= 32;
    for (int i = 1; i <= 4; ++i)
      ok = ok && std::stoi(m[i]) <= 255;
    if (ok)
      return caf::none;
  }
  return bad(flag + ": '" + value + "' is not an IPv4 CIDR range like "
             + "203.0.113.0/24");
}

} // namespace det::deploy
