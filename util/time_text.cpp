#include "util/time_text.hpp"

#include <cstdio>
#include <ctime>

namespace det::util {

std::string format_rfc3339(int64_t at_us) {
  if (at_us <= 0)
    return "";
  std::time_t secs = static_cast<std::time_t>(at_us / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%06lldZ",
                static_cast<long long>(at_us % 1000000));
  return std::string{buf} + frac;
}

std::string format_rfc3339_trimmed(int64_t at_us) {
  auto text = format_rfc3339(at_us); // "...:SS.ffffffZ"
  if (text.empty())
    return text;
  auto frac = text.substr(text.size() - 7, 6);
  if (frac == "000000")
    return text.substr(0, text.size() - 8) + "Z";
  if (frac.compare(3, 3, "000") == 0)
    return text.substr(0, text.size() - 4) + "Z";
  return text;
}

namespace {

bool digits(const std::string& t, size_t at, size_t n, int& out) {
  if (at + n > t.size())
    return false;
  out = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (t[i] < '0' || t[i] > '9')
      return false;
    out = out * 10 + (t[i] - '0');
  }
  return true;
}

} // namespace

std::optional<int64_t> parse_rfc3339(const std::string& t) {
  int year = 0, mon = 0, day = 0, hour = 0, min = 0, sec = 0;
  if (t.size() < 20 || !digits(t, 0, 4, year) || t[4] != '-'
      || !digits(t, 5, 2, mon) || t[7] != '-' || !digits(t, 8, 2, day)
      || (t[10] != 'T' && t[10] != 't') || !digits(t, 11, 2, hour)
      || t[13] != ':' || !digits(t, 14, 2, min) || t[16] != ':'
      || !digits(t, 17, 2, sec))
    return std::nullopt;
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59
      || sec > 60)
    return std::nullopt;
  size_t i = 19;
  int64_t micros = 0;
  if (i < t.size() && t[i] == '.') {
    size_t n = 0;
    for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++n)
      if (n < 6)
        micros = micros * 10 + (t[i] - '0');
    if (n == 0)
      return std::nullopt;
    for (; n < 6; ++n)
      micros *= 10;
  }
  int64_t offset_s = 0;
  if (i + 1 == t.size() && (t[i] == 'Z' || t[i] == 'z')) {
    // UTC
  } else if (i + 6 == t.size() && (t[i] == '+' || t[i] == '-')
             && t[i + 3] == ':') {
    int oh = 0, om = 0;
    if (!digits(t, i + 1, 2, oh) || !digits(t, i + 4, 2, om) || oh > 23
        || om > 59)
      return std::nullopt;
    offset_s = (oh * 3600 + om * 60) * (t[i] == '+' ? 1 : -1);
  } else {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  auto secs = timegm(&tm);
  if (secs == -1)
    return std::nullopt;
  return (static_cast<int64_t>(secs) - offset_s) * 1000000 + micros;
}

} // namespace det::util
