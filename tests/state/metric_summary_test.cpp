// fold_metric_summary folds a number into a summary it folded before in
// one walk over the summary's keys, and takes a lookup per key otherwise.
// Here it is held, on random reports, to a plain fold written from the
// summary's description (state/metric_summary.hpp) with a lookup per key:
// the same summaries, to the kind of every number. The random reports
// mix numbers of every kind, upstream's non-finite spellings, strings,
// dates and other values; summaries are now and then round-tripped through
// their text (as a snapshot restores them) or damaged, so both paths are
// taken.

#include "state/metric_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace det::state {

namespace {

using nlohmann::json;

bool strictly_equal(const json& a, const json& b) {
  if (a.type() != b.type())
    return false;
  if (a.is_object() || a.is_array()) {
    if (a.size() != b.size())
      return false;
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
      if ((a.is_object() && i.key() != j.key()) || !strictly_equal(*i, *j))
        return false;
    return true;
  }
  if (a.is_number_float()) {
    auto x = a.get<double>(), y = b.get<double>();
    return std::memcmp(&x, &y, sizeof x) == 0;
  }
  return a == b;
}

// The oracle: a lookup per key, from the header's description.
double number_of(const json& j) {
  if (j.is_number())
    return j.get<double>();
  if (j == "NaN")
    return std::numeric_limits<double>::quiet_NaN();
  if (j == "Infinity")
    return std::numeric_limits<double>::infinity();
  if (j == "-Infinity")
    return -std::numeric_limits<double>::infinity();
  return 0;
}

json stored(double x) {
  if (std::isnan(x))
    return "NaN";
  if (std::isinf(x))
    return x > 0 ? "Infinity" : "-Infinity";
  return x;
}

double nan_min(double a, double b) {
  return std::isnan(a) || std::isnan(b)
             ? std::numeric_limits<double>::quiet_NaN()
             : std::min(a, b);
}

std::string type_of(const json& v, double& x) {
  if (v.is_number() || v == "NaN" || v == "Infinity" || v == "-Infinity") {
    x = number_of(v);
    return "number";
  }
  if (v.is_string())
    return v.get<std::string>().size() >= 19 && v.get<std::string>()[10] == 'T'
               ? "date"
               : "string";
  if (v.is_boolean())
    return "boolean";
  if (v.is_object())
    return "object";
  if (v.is_array())
    return "array";
  return "null";
}

void oracle_fold(json& summary, const json& metrics) {
  if (!summary.is_object())
    summary = json::object();
  for (const auto& [name, value] : metrics.items()) {
    double x = 0;
    auto type = type_of(value, x);
    auto& m = summary[name];
    if (!m.is_object() || m.value("type", std::string{}) != type) {
      if (m.is_object())
        type = "string";
      m = json{{"type", type}};
    }
    m["last"] = value;
    if (type != "number")
      continue;
    if (!m.contains("count")) {
      m["count"] = 1;
      m["sum"] = m["min"] = m["max"] = m["mean"] = stored(x);
      continue;
    }
    auto count = static_cast<int64_t>(number_of(m["count"])) + 1;
    auto sum = number_of(m["sum"]) + x;
    m["count"] = count;
    m["sum"] = stored(sum);
    m["min"] = stored(nan_min(number_of(m["min"]), x));
    m["max"] = stored(-nan_min(-number_of(m["max"]), -x));
    m["mean"] = stored(sum / static_cast<double>(count));
  }
}

} // namespace

TEST(metric_summary, folding_in_place_gives_what_a_lookup_per_key_gives) {
  std::mt19937_64 rng{33};
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>{0, n - 1}(rng);
  };
  const json values[] = {0,
                         1,
                         -1,
                         json(static_cast<uint64_t>(7)),
                         json(static_cast<int64_t>(-7)),
                         0.5,
                         -0.0,
                         1e300,
                         -1e300,
                         "NaN",
                         "Infinity",
                         "-Infinity",
                         "text",
                         "2024-05-01T10:20:30.5+00:00",
                         true,
                         nullptr,
                         json::array({1}),
                         json{{"a", 1}}};
  const char* names[] = {"loss", "accuracy", "lr", "x"};
  int walks = 0;
  for (int run = 0; run < 200; ++run) {
    json real = json::object(), oracle = json::object();
    for (int k = 0; k < 40; ++k) {
      json metrics = json::object();
      for (auto n = pick(4); n > 0; --n) {
        auto v =
            pick(3) == 0
                ? values[pick(std::size(values))]
                : json(std::uniform_real_distribution<double>{-10, 10}(rng));
        metrics[names[pick(std::size(names))]] = v;
      }
      // A summary that fold left as it leaves it takes the walk.
      for (const auto& [name, v] : metrics.items())
        if (real.contains(name) && real[name].size() == 7 && v.is_number())
          ++walks;
      fold_metric_summary(real, metrics);
      oracle_fold(oracle, metrics);
      ASSERT_TRUE(strictly_equal(real, oracle))
          << "after " << metrics.dump() << "\n"
          << real.dump() << "\n vs\n"
          << oracle.dump();
      switch (pick(10)) {
      case 0: // restored from a snapshot's text
        real = json::parse(real.dump());
        oracle = json::parse(oracle.dump());
        break;
      case 1: { // damaged: a key gone, a count that is text, a key added
        auto name = names[pick(std::size(names))];
        if (!real.contains(name))
          break;
        const char* keys[] = {"count", "sum", "type", "min"};
        auto key = keys[pick(std::size(keys))];
        switch (pick(3)) {
        case 0:
          real[name].erase(key);
          oracle[name].erase(key);
          break;
        case 1:
          real[name][key] = "12";
          oracle[name][key] = "12";
          break;
        default:
          real[name]["extra"] = 1;
          oracle[name]["extra"] = 1;
        }
        break;
      }
      default:
        break;
      }
    }
  }
  EXPECT_GT(walks, 1000);
}

} // namespace det::state
