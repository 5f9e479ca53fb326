#include "state/metric_summary.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

namespace det::state {

namespace {

using nlohmann::json;

/// The value of upstream's spellings of non-finite numbers.
std::optional<double> special_float_of(std::string_view s) {
  if (s == "NaN")
    return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity")
    return std::numeric_limits<double>::infinity();
  if (s == "-Infinity")
    return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

/// `x` as the summary stores it: a number, or its spelling when it is not
/// finite (JSON has no NaN).
json stored_number(double x) {
  if (std::isnan(x))
    return "NaN";
  if (std::isinf(x))
    return x > 0 ? "Infinity" : "-Infinity";
  return x;
}

/// A stored number back as a double (0 for anything else).
double summary_number_of(const json& j) {
  if (j.is_number())
    return j.get<double>();
  if (j.is_string())
    return special_float_of(j.get_ref<const std::string&>()).value_or(0.0);
  return 0.0;
}

/// The smaller of `a` and `b`, NaN when either is (as Go's math.Min).
double nan_min(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  return std::min(a, b);
}

/// What Python's datetime.isoformat() writes:
/// YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM|-HH:MM].
bool is_iso_time(std::string_view s) {
  auto digits = [&](size_t at, size_t n) {
    if (at + n > s.size())
      return false;
    return std::all_of(s.begin() + at, s.begin() + at + n, [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
  };
  auto is = [&](size_t at, char c) { return at < s.size() && s[at] == c; };
  if (!(digits(0, 4) && is(4, '-') && digits(5, 2) && is(7, '-') && digits(8, 2)
        && is(10, 'T') && digits(11, 2) && is(13, ':') && digits(14, 2)
        && is(16, ':') && digits(17, 2)))
    return false;
  size_t i = 19;
  if (is(i, '.')) {
    size_t n = 0;
    while (digits(i + 1 + n, 1))
      ++n;
    if (n == 0)
      return false;
    i += 1 + n;
  }
  if (i == s.size())
    return true;
  if (is(i, 'Z'))
    return i + 1 == s.size();
  return (is(i, '+') || is(i, '-')) && digits(i + 1, 2) && is(i + 3, ':')
         && digits(i + 4, 2) && i + 6 == s.size();
}

/// Upstream's type name of a reported value, and its number when it is one.
const char* summary_type_of(const json& v, double& number) {
  switch (v.type()) {
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
  case json::value_t::number_float:
    number = v.get<double>();
    return "number";
  case json::value_t::string: {
    const auto& s = v.get_ref<const std::string&>();
    if (auto f = special_float_of(s)) {
      number = *f;
      return "number";
    }
    return is_iso_time(s) ? "date" : "string";
  }
  case json::value_t::boolean:
    return "boolean";
  case json::value_t::object:
    return "object";
  case json::value_t::array:
    return "array";
  case json::value_t::null:
    return "null";
  default:
    return "string";
  }
}

} // namespace

void fold_metric_summary(json& summary, const json& metrics) {
  if (!summary.is_object())
    summary = json::object();
  if (!metrics.is_object())
    return;
  for (const auto& [name, value] : metrics.items()) {
    double x = 0;
    std::string type = summary_type_of(value, x);
    auto& m = summary[name];
    if (!m.is_object()) {
      m = json{{"type", type}};
    } else if (m.value("type", std::string{}) != type) {
      // Reports disagree on the type: a string from now on, as upstream.
      type = "string";
      m = json{{"type", type}};
    }
    // Each key looked up once (replay folds every report of the log).
    auto& fields = m.get_ref<json::object_t&>();
    fields["last"] = value;
    if (type != "number")
      continue;
    auto count_at = fields.find("count");
    if (count_at == fields.end()) {
      fields["count"] = 1;
      auto first = stored_number(x);
      fields["sum"] = first;
      fields["min"] = first;
      fields["max"] = first;
      fields["mean"] = std::move(first);
      continue;
    }
    auto& sum_j = fields["sum"];
    auto& min_j = fields["min"];
    auto& max_j = fields["max"];
    auto count = static_cast<int64_t>(summary_number_of(count_at->second)) + 1;
    auto sum = summary_number_of(sum_j) + x;
    count_at->second = count;
    sum_j = stored_number(sum);
    min_j = stored_number(nan_min(summary_number_of(min_j), x));
    max_j = stored_number(-nan_min(-summary_number_of(max_j), -x));
    fields["mean"] = stored_number(sum / static_cast<double>(count));
  }
}

} // namespace det::state
