#include "sim/trace.hpp"

#include "util/archive.hpp"
#include "util/text.hpp"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace det::sim {

namespace {

std::vector<std::string_view> trace_fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    auto comma = line.find(',', start);
    out.push_back(util::trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos)
      return out;
    start = comma + 1;
  }
}

// Whole seconds of a decimal number ("66.0", "5810"); false when malformed.
bool trace_seconds(std::string_view s, int64_t& out) {
  if (s.empty())
    return false;
  std::string text{s};
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v) || v < 0)
    return false;
  out = static_cast<int64_t>(std::llround(v));
  return true;
}

bool trace_int(std::string_view s, int& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  // Howard Hinnant's algorithm: days since 1970-01-01.
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool read_file_bytes(const std::string& path, std::string& out,
                     std::string& error) {
  std::ifstream f{path, std::ios::binary};
  if (!f) {
    error = path + ": cannot be opened";
    return false;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

bool gunzip_file(const std::string& path, std::string& out,
                 std::string& error) {
  gzFile g = gzopen(path.c_str(), "rb");
  if (g == nullptr) {
    error = path + ": cannot be opened";
    return false;
  }
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(g, buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(n));
  bool ok = n == 0;
  gzclose(g);
  if (!ok)
    error = path + ": not a valid gzip file";
  return ok;
}

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size()
         && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

int64_t parse_utc(std::string_view t) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (t.size() != 19 || t[4] != '-' || t[7] != '-' || t[10] != ' '
      || t[13] != ':' || t[16] != ':')
    return -1;
  if (!trace_int(t.substr(0, 4), y) || !trace_int(t.substr(5, 2), mo)
      || !trace_int(t.substr(8, 2), d) || !trace_int(t.substr(11, 2), h)
      || !trace_int(t.substr(14, 2), mi) || !trace_int(t.substr(17, 2), s))
    return -1;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
    return -1;
  return days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d))
             * 86400
         + h * 3600 + mi * 60 + s;
}

bool parse_trace(std::string_view text, trace_format format, trace& out,
                 std::string& error) {
  out = trace{};
  size_t line_no = 0;
  int64_t first_epoch = -1;
  while (!text.empty()) {
    auto nl = text.find('\n');
    auto line = util::trim(text.substr(0, nl));
    text =
        nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (line.empty() || line[0] == '#')
      continue;
    auto f = trace_fields(line);
    job j;
    bool ok = false;
    if (format == trace_format::generic) {
      ok = (f.size() == 3 || f.size() == 4) && trace_seconds(f[0], j.submit_s)
           && trace_seconds(f[1], j.duration_s) && trace_int(f[2], j.gpus);
      if (ok && f.size() == 4)
        j.group = std::string{f[3]};
    } else if (format == trace_format::itp) {
      ok = f.size() == 4 && trace_seconds(f[1], j.submit_s)
           && trace_seconds(f[2], j.duration_s) && trace_int(f[3], j.gpus);
    } else {
      int64_t epoch = f.size() == 5 ? parse_utc(f[0]) : -1;
      ok = epoch >= 0 && trace_seconds(f[1], j.duration_s)
           && trace_int(f[2], j.gpus);
      if (ok) {
        j.submit_s = epoch; // made relative below
        j.group = std::string{f[4]};
        first_epoch = first_epoch < 0 ? epoch : std::min(first_epoch, epoch);
      }
    }
    if (!ok) {
      if (line_no == 1 && out.jobs.empty())
        continue; // a header line
      error = "line " + std::to_string(line_no) + ": malformed job";
      return false;
    }
    if (j.gpus <= 0 || j.duration_s <= 0) {
      ++out.skipped;
      continue;
    }
    out.jobs.push_back(std::move(j));
  }
  if (format == trace_format::philly && first_epoch >= 0) {
    out.origin_epoch_s = first_epoch;
    for (auto& j : out.jobs)
      j.submit_s -= first_epoch;
  }
  std::stable_sort(
      out.jobs.begin(), out.jobs.end(),
      [](const job& a, const job& b) { return a.submit_s < b.submit_s; });
  return true;
}

bool load_trace(const std::string& spec, trace_format format, trace& out,
                std::string& error) {
  std::string text;
  auto colon = spec.find(".tar.gz:");
  if (colon != std::string::npos) {
    auto archive = spec.substr(0, colon + 7);
    auto member = spec.substr(colon + 8);
    std::string bytes;
    if (!read_file_bytes(archive, bytes, error))
      return false;
    auto files = util::read_tgz(bytes, error);
    if (!error.empty())
      return false;
    auto it = std::find_if(files.begin(), files.end(), [&](const auto& f) {
      return f.path == member || ends_with(f.path, "/" + member);
    });
    if (it == files.end()) {
      error = archive + ": no member " + member;
      return false;
    }
    text = std::move(it->content);
  } else if (ends_with(spec, ".gz")) {
    if (!gunzip_file(spec, text, error))
      return false;
  } else if (!read_file_bytes(spec, text, error)) {
    return false;
  }
  if (!parse_trace(text, format, out, error)) {
    error = spec + ": " + error;
    return false;
  }
  return true;
}

trace slice(const trace& t, int64_t from_s, int64_t to_s) {
  trace out;
  out.origin_epoch_s = t.origin_epoch_s + from_s;
  for (const auto& j : t.jobs)
    if (j.submit_s >= from_s && j.submit_s < to_s) {
      out.jobs.push_back(j);
      out.jobs.back().submit_s -= from_s;
    }
  return out;
}

} // namespace det::sim
