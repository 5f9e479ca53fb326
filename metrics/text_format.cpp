#include "metrics/text_format.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace det::metrics {

const char* to_string(metric_type t) {
  switch (t) {
  case metric_type::counter:
    return "counter";
  case metric_type::gauge:
    return "gauge";
  case metric_type::histogram:
    return "histogram";
  }
  return "untyped";
}

std::string escape_label_value(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string escape_help(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v))
    return "NaN";
  if (std::isinf(v))
    return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_string(static_cast<long long>(v));
  // The shortest form that reads back as the same double ("0.1", not
  // "0.10000000000000001").
  char buf[64];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

namespace {

bool name_char(char c, bool first, bool colon) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
               || (colon && c == ':');
  return alpha || (!first && c >= '0' && c <= '9');
}

bool valid_name(const std::string& name, bool colon) {
  if (name.empty())
    return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i], i == 0, colon))
      return false;
  return true;
}

} // namespace

bool valid_metric_name(const std::string& name) {
  return valid_name(name, true);
}

bool valid_label_name(const std::string& name) {
  return valid_name(name, false);
}

std::string encode(const std::vector<family>& families) {
  std::string out;
  for (const auto& f : families) {
    out += "# HELP " + f.name + " " + escape_help(f.help) + "\n";
    out += "# TYPE " + f.name + " " + to_string(f.type) + "\n";
    for (const auto& s : f.samples) {
      out += f.name + s.suffix;
      if (!s.label_pairs.empty()) {
        out += '{';
        for (size_t i = 0; i < s.label_pairs.size(); ++i) {
          if (i > 0)
            out += ',';
          out += s.label_pairs[i].first + "=\""
                 + escape_label_value(s.label_pairs[i].second) + "\"";
        }
        out += '}';
      }
      out += ' ' + format_value(s.value) + '\n';
    }
  }
  return out;
}

} // namespace det::metrics
