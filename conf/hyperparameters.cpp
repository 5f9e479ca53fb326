#include "conf/hyperparameters.hpp"

namespace det::conf {

using nlohmann::json;

namespace {

hyperparameter read_one(json& node, const std::string& path, diagnostics& diag);

void read_range(object_reader& r, hyperparameter& hp, bool integers) {
  auto read_bound = [&](const char* key) -> std::optional<double> {
    if (!r.has(key)) {
      r.raw(key);
      r.fail(key, "required");
      return std::nullopt;
    }
    if (integers) {
      auto v = r.opt_integer(key);
      return v ? std::optional<double>{static_cast<double>(*v)} : std::nullopt;
    }
    return r.opt_number(key);
  };
  auto lo = read_bound("minval");
  auto hi = read_bound("maxval");
  if (lo && hi && !(*lo < *hi))
    r.fail("maxval", "must be greater than minval");
  hp.minval = lo.value_or(0);
  hp.maxval = hi.value_or(0);
  hp.count = r.opt_integer("count", 1);
}

hyperparameter read_typed(object_reader& r) {
  hyperparameter hp;
  auto type = r.choice("type", "const",
                       {"const", "int", "double", "log", "categorical"});
  if (type == "const") {
    hp.type = hyperparameter::kind::constant;
    // A null val is a value: a plain `name:` (null) is stored as
    // {type: const, val: null}, which must read back the same.
    auto* v = r.raw("val");
    if (v == nullptr && !r.node().contains("val"))
      r.fail("val", "required for a const hyperparameter");
    else
      hp.val = v != nullptr ? *v : nlohmann::json(nullptr);
  } else if (type == "int" || type == "double") {
    hp.type = type == "int" ? hyperparameter::kind::int_range
                            : hyperparameter::kind::double_range;
    read_range(r, hp, type == "int");
  } else if (type == "log") {
    hp.type = hyperparameter::kind::log_range;
    read_range(r, hp, false);
    hp.base = r.number("base", 10);
    if (hp.base <= 0)
      r.fail("base", "must be greater than 0");
  } else {
    hp.type = hyperparameter::kind::categorical;
    auto* v = r.raw("vals");
    if (v == nullptr)
      r.fail("vals", "required for a categorical hyperparameter");
    else if (!v->is_array())
      r.fail("vals", "expected a list, got " + describe(*v));
    else if (v->empty())
      r.fail("vals", "must not be empty");
    else
      hp.vals.assign(v->begin(), v->end());
  }
  r.finish();
  return hp;
}

hyperparameter read_one(json& node, const std::string& path,
                        diagnostics& diag) {
  if (node.is_object() && node.contains("type")) {
    object_reader r{node, path, diag};
    return read_typed(r);
  }
  if (node.is_object()) {
    hyperparameter hp;
    hp.type = hyperparameter::kind::nested;
    for (auto& kv : node.items())
      hp.nested.push_back(
          {kv.key(), read_one(kv.value(), join_path(path, kv.key()), diag)});
    return hp;
  }
  hyperparameter hp; // a plain value is a constant
  hp.val = node;
  node = json{{"type", "const"}, {"val", hp.val}};
  return hp;
}

} // namespace

std::vector<named_hyperparameter> read_hyperparameters(object_reader& r) {
  std::vector<named_hyperparameter> out;
  r.allow_all();
  for (auto& kv : r.node().items())
    out.push_back(
        {kv.key(), read_one(kv.value(), r.path_of(kv.key()), r.diag())});
  return out;
}

bool all_ranges_have_count(const std::vector<named_hyperparameter>& hps,
                           std::string& missing, const std::string& prefix) {
  for (const auto& h : hps) {
    auto name = prefix.empty() ? h.name : prefix + "." + h.name;
    switch (h.hp.type) {
    case hyperparameter::kind::int_range:
    case hyperparameter::kind::double_range:
    case hyperparameter::kind::log_range:
      if (!h.hp.count) {
        missing = name;
        return false;
      }
      break;
    case hyperparameter::kind::nested:
      if (!all_ranges_have_count(h.hp.nested, missing, name))
        return false;
      break;
    default:
      break;
    }
  }
  return true;
}

} // namespace det::conf
