#include "state/metric_summary.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <iterator>
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

namespace {

/// Whether `m`, a metric's summary, has type `type`. A "type" that is not a
/// string throws as json::value() does (apply refuses the event).
bool has_type(const json& m, const char* type) {
  auto t = m.find("type");
  if (t == m.end())
    return false;
  if (!t->is_string())
    return m.value("type", std::string{}) == type;
  return t->get_ref<const std::string&>() == type;
}

/// `j` = stored_number(x), in place when it already holds a double.
void put_number(json& j, double x) {
  if (j.is_number_float() && std::isfinite(x))
    j.get_ref<double&>() = x;
  else
    j = stored_number(x);
}

/// Folds number `x` (reported as `value`) into `fields`, a number's summary
/// as fold_metric_summary leaves it after its first report: exactly its
/// seven keys, which the map keeps in this order. False, changing nothing,
/// for any other summary; the general path then folds it. The same
/// arithmetic as the general path, with one walk instead of a lookup per
/// key.
bool fold_number_in_place(json::object_t& fields, const json& value, double x) {
  static constexpr std::string_view keys[] = {"count", "last", "max", "mean",
                                              "min",   "sum",  "type"};
  if (fields.size() != std::size(keys))
    return false;
  json* at[std::size(keys)];
  size_t k = 0;
  for (auto& [key, v] : fields) {
    if (key != keys[k])
      return false;
    at[k++] = &v;
  }
  auto& [count_j, last_j, max_j, mean_j, min_j, sum_j, type_j] = at;
  if (!type_j->is_string() || type_j->get_ref<const std::string&>() != "number")
    return false;
  auto count = static_cast<int64_t>(summary_number_of(*count_j)) + 1;
  auto sum = summary_number_of(*sum_j) + x;
  *last_j = value;
  if (count_j->is_number_integer() && !count_j->is_number_unsigned())
    count_j->get_ref<int64_t&>() = count;
  else
    *count_j = count;
  put_number(*sum_j, sum);
  put_number(*min_j, nan_min(summary_number_of(*min_j), x));
  put_number(*max_j, -nan_min(-summary_number_of(*max_j), -x));
  put_number(*mean_j, sum / static_cast<double>(count));
  return true;
}

} // namespace

void fold_metric_summary(json& summary, const json& metrics) {
  if (!summary.is_object())
    summary = json::object();
  if (!metrics.is_object())
    return;
  auto& by_name = summary.get_ref<json::object_t&>();
  for (const auto& [name, value] : metrics.get_ref<const json::object_t&>()) {
    double x = 0;
    const char* type = summary_type_of(value, x);
    auto& m = by_name[name];
    if (m.is_object() && std::strcmp(type, "number") == 0
        && fold_number_in_place(m.get_ref<json::object_t&>(), value, x))
      continue;
    if (!m.is_object()) {
      m = json{{"type", type}};
    } else if (!has_type(m, type)) {
      // Reports disagree on the type: a string from now on, as upstream.
      type = "string";
      m = json{{"type", type}};
    }
    // Each key looked up once (replay folds every report of the log).
    auto& fields = m.get_ref<json::object_t&>();
    fields["last"] = value;
    if (std::strcmp(type, "number") != 0)
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
