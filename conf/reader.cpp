#include "conf/reader.hpp"

#include "conf/duration.hpp"

#include <algorithm>
#include <cmath>

namespace det::conf {

using nlohmann::json;

// -- diagnostics --------------------------------------------------------------

void diagnostics::error(const std::string& path, const std::string& message) {
  messages_.push_back(path.empty() ? message : path + ": " + message);
}

caf::error diagnostics::to_error(const std::string& prefix) const {
  std::string out;
  for (const auto& m : messages_) {
    if (!out.empty())
      out += '\n';
    out += m;
  }
  if (!prefix.empty())
    out = prefix + ": " + out;
  return make_error(errc::invalid_argument, std::move(out));
}

// -- helpers ------------------------------------------------------------------

std::string join_path(const std::string& base, std::string_view key) {
  if (base.empty())
    return std::string{key};
  std::string out = base;
  out += '.';
  out += key;
  return out;
}

std::string index_path(const std::string& base, size_t index) {
  return base + "[" + std::to_string(index) + "]";
}

std::string describe(const json& value) {
  switch (value.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::object:
    return "an object";
  case json::value_t::array:
    return "a list";
  default:
    return value.dump();
  }
}

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      // Adjacent transposition counts as one edit ("metirc").
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], prev[j - 1]);
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

} // namespace

std::string nearest(std::string_view word,
                    const std::set<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    auto d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string message_of(const caf::error& err) {
  const auto& ctx = err.context();
  if (ctx.size() == 1 && ctx.match_element<std::string>(0))
    return ctx.get_as<std::string>(0);
  return render(err);
}

std::optional<int64_t> as_integer(const json& value) {
  if (value.is_number_integer())
    return value.get<int64_t>();
  if (value.is_number_float()) {
    double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15)
      return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

// -- object_reader ------------------------------------------------------------

object_reader::object_reader(json& node, std::string path, diagnostics& diag,
                             bool fill_defaults)
    : node_(&node), path_(std::move(path)), diag_(&diag), fill_(fill_defaults) {
  if (node.is_null()) {
    if (fill_)
      node = json::object();
    else
      node_ = nullptr;
  } else if (!node.is_object()) {
    diag.error(path_, "expected an object, got " + describe(node));
    node_ = nullptr;
  }
  if (node_ == nullptr) {
    owned_ = std::make_shared<json>(json::object());
    node_ = owned_.get();
  }
}

json* object_reader::find(std::string_view key) {
  auto i = node_->find(std::string{key});
  if (i == node_->end() || i->is_null())
    return nullptr;
  return &*i;
}

bool object_reader::has(std::string_view key) const {
  auto i = node_->find(std::string{key});
  return i != node_->end() && !i->is_null();
}

void object_reader::fail(std::string_view key, const std::string& message) {
  diag_->error(path_of(key), message);
}

void object_reader::fail_here(const std::string& message) {
  diag_->error(path_, message);
}

void object_reader::type_error(std::string_view key, const char* expected,
                               const json& got) {
  fail(key, std::string{"expected "} + expected + ", got " + describe(got));
}

template <class T> void object_reader::put_default(const char* key, T value) {
  if (fill_)
    (*node_)[key] = std::move(value);
}

void object_reader::alias(const char* alias, const char* canonical) {
  known_.insert(alias);
  auto a = node_->find(alias);
  if (a == node_->end())
    return;
  auto c = node_->find(canonical);
  if (c != node_->end() && !c->is_null() && !a->is_null() && *c != *a) {
    fail(alias, std::string{"conflicts with '"} + canonical
                    + "' (the same setting under two names)");
    node_->erase(a);
    return;
  }
  if (c == node_->end() || c->is_null())
    (*node_)[canonical] = *a;
  node_->erase(alias);
}

std::string object_reader::str(const char* key, std::string fallback) {
  known_.insert(key);
  if (auto* v = find(key)) {
    if (v->is_string())
      return v->get<std::string>();
    type_error(key, "a string", *v);
    return fallback;
  }
  put_default(key, fallback);
  return fallback;
}

std::optional<std::string> object_reader::opt_str(const char* key) {
  known_.insert(key);
  if (auto* v = find(key)) {
    if (v->is_string())
      return v->get<std::string>();
    type_error(key, "a string", *v);
  }
  return std::nullopt;
}

std::string object_reader::required_str(const char* key, const char* why) {
  known_.insert(key);
  if (auto* v = find(key)) {
    if (v->is_string() && !v->get<std::string>().empty())
      return v->get<std::string>();
    if (v->is_string())
      fail(key, why ? why : "must not be empty");
    else
      type_error(key, "a string", *v);
    return {};
  }
  fail(key, why ? why : "required");
  return {};
}

std::string object_reader::choice(const char* key, std::string fallback,
                                  std::initializer_list<const char*> choices) {
  auto given = opt_str(key);
  if (!given) {
    if (!has(key))
      put_default(key, fallback);
    return fallback;
  }
  for (auto c : choices)
    if (*given == c)
      return *given;
  std::string list;
  std::set<std::string> names;
  for (auto c : choices) {
    list += list.empty() ? "" : ", ";
    list += std::string{"'"} + c + "'";
    names.insert(c);
  }
  std::string msg = "expected one of " + list + ", got \"" + *given + "\"";
  auto near = nearest(*given, names);
  if (!near.empty())
    msg += " (did you mean '" + near + "'?)";
  fail(key, msg);
  return fallback;
}

int64_t object_reader::integer(const char* key, int64_t fallback, int64_t min,
                               int64_t max) {
  known_.insert(key);
  if (find(key) == nullptr) {
    put_default(key, fallback);
    return fallback;
  }
  return opt_integer(key, min, max).value_or(fallback);
}

std::optional<int64_t> object_reader::opt_integer(const char* key, int64_t min,
                                                  int64_t max) {
  known_.insert(key);
  auto* v = find(key);
  if (v == nullptr)
    return std::nullopt;
  auto i = as_integer(*v);
  if (!i) {
    type_error(key, "an integer", *v);
    return std::nullopt;
  }
  if (*i < min || *i > max) {
    std::string range;
    if (max == std::numeric_limits<int64_t>::max())
      range = "at least " + std::to_string(min);
    else if (min == std::numeric_limits<int64_t>::min())
      range = "at most " + std::to_string(max);
    else
      range = "between " + std::to_string(min) + " and " + std::to_string(max);
    fail(key, "must be " + range + ", got " + std::to_string(*i));
    return std::nullopt;
  }
  *v = *i; // 4.0 -> 4
  return i;
}

double object_reader::number(const char* key, double fallback) {
  known_.insert(key);
  if (find(key) == nullptr) {
    put_default(key, fallback);
    return fallback;
  }
  return opt_number(key).value_or(fallback);
}

std::optional<double> object_reader::opt_number(const char* key) {
  known_.insert(key);
  auto* v = find(key);
  if (v == nullptr)
    return std::nullopt;
  if (!v->is_number()) {
    type_error(key, "a number", *v);
    return std::nullopt;
  }
  return v->get<double>();
}

bool object_reader::boolean(const char* key, bool fallback) {
  known_.insert(key);
  if (auto* v = find(key)) {
    if (v->is_boolean())
      return v->get<bool>();
    type_error(key, "a boolean (true or false)", *v);
    return fallback;
  }
  put_default(key, fallback);
  return fallback;
}

std::optional<duration> object_reader::opt_dur(const char* key,
                                               bool must_be_positive) {
  known_.insert(key);
  auto* v = find(key);
  if (v == nullptr)
    return std::nullopt;
  std::optional<duration> out;
  if (v->is_number()) {
    out = duration{static_cast<int64_t>(std::llround(v->get<double>() * 1000))};
  } else if (v->is_string()) {
    auto d = parse_duration(v->get<std::string>());
    if (!d) {
      fail(key, "expected a duration such as \"5m\", \"30s\" or \"1h\", got "
                    + describe(*v));
      return std::nullopt;
    }
    out = *d;
  } else {
    type_error(key, "a duration such as \"5m\", \"30s\" or \"1h\"", *v);
    return std::nullopt;
  }
  if (out->count() < 0 || (must_be_positive && out->count() == 0)) {
    fail(key, must_be_positive ? "must be a positive duration"
                               : "must not be negative");
    return std::nullopt;
  }
  return out;
}

duration object_reader::dur(const char* key, duration fallback,
                            const char* fallback_text, bool must_be_positive) {
  known_.insert(key);
  if (find(key) == nullptr) {
    put_default(key, std::string{fallback_text});
    return fallback;
  }
  return opt_dur(key, must_be_positive).value_or(fallback);
}

std::vector<std::string> object_reader::str_list(const char* key) {
  known_.insert(key);
  std::vector<std::string> out;
  auto* v = find(key);
  if (v == nullptr) {
    put_default(key, json::array());
    return out;
  }
  if (!v->is_array()) {
    type_error(key, "a list of strings", *v);
    return out;
  }
  for (size_t i = 0; i < v->size(); ++i) {
    const auto& x = (*v)[i];
    if (x.is_string())
      out.push_back(x.get<std::string>());
    else
      diag_->error(index_path(path_of(key), i),
                   "expected a string, got " + describe(x));
  }
  return out;
}

json* object_reader::raw(const char* key) {
  known_.insert(key);
  return find(key);
}

void object_reader::allow(std::initializer_list<const char*> keys) {
  for (auto k : keys)
    known_.insert(k);
}

object_reader object_reader::child(const char* key) {
  known_.insert(key);
  auto i = node_->find(key);
  if (i == node_->end()) {
    if (fill_)
      return object_reader{(*node_)[key] = json::object(), path_of(key), *diag_,
                           fill_};
    json detached;
    return object_reader{detached, path_of(key), *diag_, false};
  }
  return object_reader{*i, path_of(key), *diag_, fill_};
}

void object_reader::finish() {
  if (allow_all_)
    return;
  for (auto& kv : node_->items()) {
    if (known_.count(kv.key()))
      continue;
    std::string msg = "unknown field '" + kv.key() + "'";
    auto near = nearest(kv.key(), known_);
    if (!near.empty())
      msg += " (did you mean '" + near + "'?)";
    fail_here(msg);
  }
}

} // namespace det::conf
