#include "policy/hyperparameters.hpp"

#include "messages/errc.hpp"

#include <cmath>

namespace det::policy {

using json = nlohmann::json;

namespace {

caf::error bad(const std::string& path, const std::string& what) {
  return make_error(errc::invalid_argument, path + ": " + what);
}

caf::error read_number(const json& j, const std::string& path, const char* key,
                       double& out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number())
    return bad(path + "." + key, "a number is required");
  out = it->get<double>();
  return caf::none;
}

caf::error parse_one(const std::string& name, const json& j,
                     const std::string& path, hparam& out) {
  out.name = name;
  if (!j.is_object()) {
    out.type = hparam::kind::constant;
    out.value = j;
    return caf::none;
  }
  auto t = j.find("type");
  if (t == j.end()) {
    out.type = hparam::kind::nested;
    for (const auto& [k, v] : j.items()) {
      hparam child;
      if (auto err = parse_one(k, v, path + "." + k, child))
        return err;
      out.children.push_back(std::move(child));
    }
    return caf::none;
  }
  if (!t->is_string())
    return bad(path + ".type", "must be a string");
  auto type = t->get<std::string>();
  if (type == "const") {
    if (!j.contains("val"))
      return bad(path + ".val", "a const hyperparameter needs val");
    out.type = hparam::kind::constant;
    out.value = j.at("val");
    return caf::none;
  }
  if (type == "categorical") {
    auto v = j.find("vals");
    if (v == j.end() || !v->is_array() || v->empty())
      return bad(path + ".vals", "a non-empty list is required");
    out.type = hparam::kind::categorical;
    out.vals.assign(v->begin(), v->end());
    return caf::none;
  }
  if (type == "int")
    out.type = hparam::kind::integer;
  else if (type == "double")
    out.type = hparam::kind::real;
  else if (type == "log")
    out.type = hparam::kind::log;
  else
    return bad(path + ".type",
               "unknown type '" + type
                   + "' (const, int, double, log, categorical)");
  if (auto err = read_number(j, path, "minval", out.minval))
    return err;
  if (auto err = read_number(j, path, "maxval", out.maxval))
    return err;
  if (out.minval > out.maxval)
    return bad(path + ".maxval", "must not be less than minval");
  if (out.type == hparam::kind::integer
      && (out.minval != std::floor(out.minval)
          || out.maxval != std::floor(out.maxval)))
    return bad(path, "int bounds must be integers");
  if (out.type == hparam::kind::log) {
    if (auto err = read_number(j, path, "base", out.base))
      return err;
    if (out.base <= 0)
      return bad(path + ".base", "must be positive");
  }
  if (auto c = j.find("count"); c != j.end()) {
    if (!c->is_number_integer() || c->get<long long>() < 1)
      return bad(path + ".count", "must be a positive integer");
    out.count = c->get<int>();
  }
  return caf::none;
}

/// The grid values of one leaf, as upstream spaces them: count points from
/// minval to maxval inclusive, the midpoint when count is 1, ints rounded
/// and clamped to the number of integers in range.
std::vector<json> leaf_values(const hparam& h) {
  std::vector<json> out;
  switch (h.type) {
  case hparam::kind::constant:
    out.push_back(h.value);
    break;
  case hparam::kind::categorical:
    out = h.vals;
    break;
  case hparam::kind::integer: {
    auto lo = static_cast<long long>(h.minval);
    auto hi = static_cast<long long>(h.maxval);
    long long n = std::min<long long>(*h.count, hi - lo + 1);
    if (n == 1) {
      out.push_back(std::llround(static_cast<double>(lo + hi) / 2.0));
      break;
    }
    for (long long i = 0; i < n; ++i)
      out.push_back(std::llround(static_cast<double>(lo)
                                 + static_cast<double>(i * (hi - lo))
                                       / static_cast<double>(n - 1)));
    break;
  }
  case hparam::kind::real:
  case hparam::kind::log: {
    int n = *h.count;
    auto at = [&](double x) {
      return h.type == hparam::kind::log ? std::pow(h.base, x) : x;
    };
    if (n == 1) {
      out.push_back(at((h.minval + h.maxval) / 2.0));
      break;
    }
    for (int i = 0; i < n; ++i)
      out.push_back(at(h.minval + i * (h.maxval - h.minval) / (n - 1)));
    break;
  }
  case hparam::kind::nested:
    break;
  }
  return out;
}

/// Flattens the space into (path, leaf) pairs in name order.
void leaves(
    const hparam_space& space, std::vector<std::string>& prefix,
    std::vector<std::pair<std::vector<std::string>, const hparam*>>& out) {
  for (const auto& h : space) {
    prefix.push_back(h.name);
    if (h.type == hparam::kind::nested)
      leaves(h.children, prefix, out);
    else
      out.emplace_back(prefix, &h);
    prefix.pop_back();
  }
}

/// An object holding an empty object for every nested hyperparameter, so
/// that a nested one with no leaves (`actions: {}`) still reaches the trial.
json skeleton(const hparam_space& space) {
  json out = json::object();
  for (const auto& h : space)
    if (h.type == hparam::kind::nested)
      out[h.name] = skeleton(h.children);
  return out;
}

void put(json& point, const std::vector<std::string>& path, json value) {
  json* at = &point;
  for (size_t i = 0; i + 1 < path.size(); ++i)
    at = &(*at)[path[i]];
  (*at)[path.back()] = std::move(value);
}

json sample_leaf(const hparam& h, rng& r) {
  switch (h.type) {
  case hparam::kind::constant:
    return h.value;
  case hparam::kind::categorical:
    return h.vals[static_cast<size_t>(
        r.between(0, static_cast<int64_t>(h.vals.size()) - 1))];
  case hparam::kind::integer:
    return r.between(static_cast<int64_t>(h.minval),
                     static_cast<int64_t>(h.maxval));
  case hparam::kind::real:
    return r.uniform(h.minval, h.maxval);
  case hparam::kind::log:
    return std::pow(h.base, r.uniform(h.minval, h.maxval));
  case hparam::kind::nested:
    break;
  }
  return nullptr;
}

} // namespace

caf::expected<hparam_space> parse_hyperparameters(const json& j) {
  hparam_space out;
  if (j.is_null())
    return out;
  if (!j.is_object())
    return bad("hyperparameters", "must be a mapping of names");
  for (const auto& [k, v] : j.items()) {
    hparam h;
    if (auto err = parse_one(k, v, "hyperparameters." + k, h))
      return err;
    out.push_back(std::move(h));
  }
  return out;
}

caf::expected<std::vector<json>> grid_points(const hparam_space& space,
                                             size_t max_points) {
  std::vector<std::string> prefix;
  std::vector<std::pair<std::vector<std::string>, const hparam*>> ls;
  leaves(space, prefix, ls);
  std::vector<std::vector<json>> values;
  size_t total = 1;
  for (const auto& [path, h] : ls) {
    bool ranged = h->type == hparam::kind::integer
                  || h->type == hparam::kind::real
                  || h->type == hparam::kind::log;
    std::string name;
    for (const auto& p : path)
      name += (name.empty() ? "" : ".") + p;
    if (ranged && !h->count)
      return bad("hyperparameters." + name + ".count",
                 "grid search needs a count for every int, double and log "
                 "hyperparameter");
    values.push_back(leaf_values(*h));
    total *= values.back().size();
    if (total > max_points)
      return bad("hyperparameters", "the grid has more than "
                                        + std::to_string(max_points)
                                        + " points");
  }
  std::vector<json> out;
  if (ls.empty())
    return out;
  out.reserve(total);
  std::vector<size_t> idx(ls.size(), 0);
  const json base = skeleton(space);
  for (size_t n = 0; n < total; ++n) {
    json point = base;
    for (size_t i = 0; i < ls.size(); ++i)
      put(point, ls[i].first, values[i][idx[i]]);
    out.push_back(std::move(point));
    for (size_t i = ls.size(); i-- > 0;) {
      if (++idx[i] < values[i].size())
        break;
      idx[i] = 0;
    }
  }
  return out;
}

json sample(const hparam_space& space, rng& r) {
  std::vector<std::string> prefix;
  std::vector<std::pair<std::vector<std::string>, const hparam*>> ls;
  leaves(space, prefix, ls);
  json point = skeleton(space);
  for (const auto& [path, h] : ls)
    put(point, path, sample_leaf(*h, r));
  return point;
}

} // namespace det::policy
