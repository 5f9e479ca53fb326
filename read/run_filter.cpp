#include "read/run_filter.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

namespace det::read {

using json = nlohmann::json;

namespace {

json run_field(const json& run, const char* key) {
  auto it = run.find(key);
  return it == run.end() ? json() : *it;
}

json exp_field(const json& run, const char* key) {
  auto e = run.find("experiment");
  if (e == run.end() || !e->is_object())
    return nullptr;
  return run_field(*e, key);
}

/// The run's columns, as upstream's run filter names them.
const std::map<std::string, run_column, std::less<>>& run_columns() {
  static const std::map<std::string, run_column, std::less<>> cols{
      {"id", [](const json& r) { return run_field(r, "id"); }},
      {"experimentId", [](const json& r) { return exp_field(r, "id"); }},
      {"experimentName", [](const json& r) { return exp_field(r, "name"); }},
      {"experimentDescription",
       [](const json& r) { return exp_field(r, "description"); }},
      {"tags", [](const json& r) { return run_field(r, "labels"); }},
      {"searcherType",
       [](const json& r) { return exp_field(r, "searcherType"); }},
      {"searcherMetric",
       [](const json& r) { return exp_field(r, "searcherMetric"); }},
      {"resourcePool",
       [](const json& r) { return exp_field(r, "resourcePool"); }},
      {"experimentProgress",
       [](const json& r) -> json {
         auto p = exp_field(r, "progress");
         if (!p.is_number())
           return nullptr;
         return static_cast<int64_t>(std::lround(p.get<double>() * 100.0));
       }},
      {"isExpMultitrial",
       [](const json& r) -> json {
         auto s = exp_field(r, "searcherType");
         return s.is_string() && s.get<std::string>() != "single";
       }},
      {"startTime", [](const json& r) { return run_field(r, "startTime"); }},
      {"endTime", [](const json& r) { return run_field(r, "endTime"); }},
      {"state", [](const json& r) { return run_field(r, "state"); }},
      {"duration", [](const json& r) { return run_field(r, "duration"); }},
      {"projectId", [](const json& r) { return run_field(r, "projectId"); }},
      {"checkpointCount",
       [](const json& r) { return run_field(r, "checkpointCount"); }},
      {"checkpointSize",
       [](const json& r) -> json {
         auto s = run_field(r, "checkpointSize");
         int64_t n = 0;
         if (!s.is_string())
           return s;
         const auto& t = s.get_ref<const std::string&>();
         auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
         return ec == std::errc{} && p == t.data() + t.size() ? json(n) : s;
       }},
      {"searcherMetricsVal",
       [](const json& r) { return run_field(r, "searcherMetricValue"); }},
      {"user", [](const json& r) { return run_field(r, "userId"); }},
      {"localId", [](const json& r) { return run_field(r, "localId"); }},
      {"parentArchived",
       [](const json& r) { return run_field(r, "parentArchived"); }},
      {"forkedFrom", [](const json&) { return json(); }},
      {"externalExperimentId", [](const json&) { return json(); }},
      {"externalRunId", [](const json&) { return json(); }},
  };
  return cols;
}

/// LOCATION_TYPE_EXPERIMENT's columns that a run shows of its experiment,
/// each read as the run column it names.
const std::map<std::string, run_column, std::less<>>& experiment_columns() {
  static const auto cols = [] {
    std::map<std::string, run_column, std::less<>> out;
    for (auto [name, as_run] :
         std::initializer_list<std::pair<const char*, const char*>>{
             {"id", "experimentId"},
             {"name", "experimentName"},
             {"description", "experimentDescription"},
             {"tags", "tags"},
             {"searcherType", "searcherType"},
             {"searcherMetric", "searcherMetric"},
             {"resourcePool", "resourcePool"},
             {"progress", "experimentProgress"},
             {"user", "user"},
             {"projectId", "projectId"},
             {"forkedFrom", "forkedFrom"},
             {"externalExperimentId", "externalExperimentId"}})
      out.emplace(name, run_columns().at(as_run));
    return out;
  }();
  return cols;
}

const std::map<std::string, run_filter::op, std::less<>>& operators() {
  using op = run_filter::op;
  static const std::map<std::string, op, std::less<>> ops{
      {"=", op::eq},
      {"!=", op::ne},
      {"<", op::lt},
      {"<=", op::le},
      {">", op::gt},
      {">=", op::ge},
      {"contains", op::contains},
      {"notContains", op::not_contains},
      {"isEmpty", op::empty},
      {"notEmpty", op::not_empty},
  };
  return ops;
}

/// Splits "a.b.c" at its dots; nothing when a part is empty.
std::optional<std::vector<std::string>> dotted(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    auto dot = s.find('.', start);
    auto part =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos
                                                      : dot - start);
    if (part.empty())
      return std::nullopt;
    out.emplace_back(part);
    if (dot == std::string_view::npos)
      return out;
    start = dot + 1;
  }
}

/// "group.name.qualifier" as the summaryMetrics path [group, name,
/// qualifier]: the group ends at the first dot, the qualifier follows the
/// last (a metric name may hold dots).
std::optional<std::vector<std::string>> metric_path(std::string_view s) {
  auto first = s.find('.');
  auto last = s.rfind('.');
  if (first == std::string_view::npos || first == last || first == 0
      || last == first + 1)
    return std::nullopt;
  std::string group{s.substr(0, first)};
  std::string qualifier{s.substr(last + 1)};
  if (qualifier != "min" && qualifier != "max" && qualifier != "mean"
      && qualifier != "last")
    return std::nullopt;
  if (group == "training")
    group = "avg_metrics";
  else if (group == "validation")
    group = "validation_metrics";
  return std::vector<std::string>{
      std::move(group), std::string{s.substr(first + 1, last - first - 1)},
      std::move(qualifier)};
}

struct parser {
  std::vector<run_filter::node>& nodes;
  std::optional<filter_error> error;

  bool fail(std::string field, std::string message) {
    error = filter_error{std::move(field), std::move(message)};
    return false;
  }

  static std::string text_of(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
  }

  /// Parses `j` at `path` into nodes[at].
  bool parse(const json& j, const std::string& path, size_t at, size_t depth) {
    if (!j.is_object())
      return fail(path, "expected an object");
    if (depth > max_filter_depth)
      return fail(path, "groups nest at most "
                            + std::to_string(max_filter_depth) + " deep");
    auto kind = j.find("kind");
    if (kind == j.end() || !kind->is_string())
      return fail(path + ".kind", "expected \"group\" or \"field\"");
    if (*kind == "group")
      return parse_group(j, path, at, depth);
    if (*kind == "field")
      return parse_field(j, path, at);
    return fail(path + ".kind", "expected \"group\" or \"field\", got '"
                                    + kind->get<std::string>().substr(0, 32)
                                    + "'");
  }

  bool parse_group(const json& j, const std::string& path, size_t at,
                   size_t depth) {
    auto conj = j.find("conjunction");
    if (conj == j.end() || !conj->is_string()
        || (*conj != "and" && *conj != "or"))
      return fail(path + ".conjunction", "expected \"and\" or \"or\"");
    nodes[at].is_group = true;
    nodes[at].conjunction_or = *conj == "or";
    auto kids = j.find("children");
    if (kids == j.end() || kids->is_null())
      return true;
    if (!kids->is_array())
      return fail(path + ".children", "expected a list");
    for (size_t i = 0; i < kids->size(); ++i) {
      if (nodes.size() == max_filter_nodes)
        return fail(path + ".children", "a filter holds at most "
                                            + std::to_string(max_filter_nodes)
                                            + " fields and groups");
      nodes.emplace_back();
      auto child = nodes.size() - 1;
      nodes[at].children.push_back(child);
      if (!parse((*kids)[i], path + ".children[" + std::to_string(i) + "]",
                 child, depth + 1))
        return false;
    }
    return true;
  }

  bool parse_field(const json& j, const std::string& path, size_t at) {
    auto& n = nodes[at];
    auto oper = j.find("operator");
    if (oper == j.end() || !oper->is_string())
      return fail(path + ".operator", "required");
    auto o = operators().find(oper->get<std::string>());
    if (o == operators().end())
      return fail(path + ".operator",
                  "'" + oper->get<std::string>().substr(0, 32)
                      + "' is not an operator (=, !=, <, <=, >, >=, "
                        "contains, notContains, isEmpty, notEmpty)");
    n.oper = o->second;
    if (auto v = j.find("value"); v != j.end()) {
      if (v->is_object() || (v->is_array() && !v->empty()))
        return fail(path + ".value", "expected a number, text or a boolean");
      if (!v->is_array())
        n.value = *v;
    }
    auto column = text_of(j, "columnName");
    if (column.empty())
      return fail(path + ".columnName", "required");
    auto where = j.contains("location") ? text_of(j, "location")
                                        : "LOCATION_TYPE_EXPERIMENT";
    auto col_field = path + ".columnName";
    auto unknown = [&](const char* loc) {
      return fail(col_field,
                  "'" + column.substr(0, 64) + "' is not a column of " + loc);
    };
    if (where == "LOCATION_TYPE_RUN") {
      n.where = run_filter::location::run;
      n.column = find_run_column(column);
      return n.column != nullptr || unknown("runs");
    }
    if (where == "LOCATION_TYPE_EXPERIMENT") {
      n.where = run_filter::location::experiment;
      auto c = experiment_columns().find(column);
      if (c == experiment_columns().end())
        return unknown("a run's experiment");
      n.column = c->second;
      return true;
    }
    if (where == "LOCATION_TYPE_RUN_HYPERPARAMETERS"
        || where == "LOCATION_TYPE_HYPERPARAMETERS") {
      n.where = run_filter::location::hyperparameter;
      std::string_view name = column;
      if (name.substr(0, 3) == "hp.")
        name.remove_prefix(3);
      auto p = dotted(name);
      if (!p)
        return fail(col_field, "expected a hyperparameter's name, parts "
                               "separated by dots");
      n.path = std::move(*p);
      return true;
    }
    if (where == "LOCATION_TYPE_VALIDATIONS"
        || where == "LOCATION_TYPE_TRAINING"
        || where == "LOCATION_TYPE_CUSTOM_METRIC") {
      n.where = run_filter::location::metric;
      auto p = metric_path(column);
      if (!p)
        return fail(col_field, "expected group.name.qualifier (qualifier "
                               "min, max, mean or last)");
      n.path = std::move(*p);
      return true;
    }
    if (where == "LOCATION_TYPE_RUN_METADATA") {
      n.where = run_filter::location::metadata;
      return true;
    }
    return fail(path + ".location",
                "'" + where.substr(0, 64) + "' is not a location");
  }
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
    return static_cast<char>(std::tolower(c));
  });
  return s;
}

std::string as_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::optional<double> as_number(const json& v) {
  if (v.is_number())
    return v.get<double>();
  if (!v.is_string())
    return std::nullopt;
  const auto& s = v.get_ref<const std::string&>();
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc{} || p != s.data() + s.size() || s.empty())
    return std::nullopt;
  return d;
}

/// A state as upstream's filter writes it ("STATE_ACTIVE" or "ACTIVE").
std::string state_text(std::string s) {
  if (s.rfind("STATE_", 0) == 0)
    s.erase(0, 6);
  return s;
}

bool compare(const json& have, run_filter::op o, const json& want,
             bool is_state) {
  using op = run_filter::op;
  auto a = as_number(have);
  auto b = as_number(want);
  int cmp = 0;
  if (a && b && (have.is_number() || want.is_number())) {
    cmp = *a < *b ? -1 : (*a > *b ? 1 : 0);
  } else if (have.is_boolean() || want.is_boolean()) {
    if (!have.is_boolean() || !want.is_boolean())
      return o == op::ne;
    cmp = have == want ? 0 : (have.get<bool>() ? 1 : -1);
  } else {
    auto x = as_text(have);
    auto y = as_text(want);
    if (is_state) {
      x = state_text(std::move(x));
      y = state_text(std::move(y));
    }
    cmp = x.compare(y);
    cmp = cmp < 0 ? -1 : (cmp > 0 ? 1 : 0);
  }
  switch (o) {
  case op::eq:
    return cmp == 0;
  case op::ne:
    return cmp != 0;
  case op::lt:
    return cmp < 0;
  case op::le:
    return cmp <= 0;
  case op::gt:
    return cmp > 0;
  case op::ge:
    return cmp >= 0;
  default:
    return false;
  }
}

bool contains_text(const json& have, const std::string& needle) {
  if (have.is_array())
    return std::any_of(have.begin(), have.end(),
                       [&](const json& e) { return contains_text(e, needle); });
  return lower(as_text(have)).find(needle) != std::string::npos;
}

bool is_empty_value(const json& v) {
  return v.is_null()
         || (v.is_string() && v.get_ref<const std::string&>().empty())
         || (v.is_array() && v.empty());
}

json walk(const json& from, const std::vector<std::string>& path) {
  const json* at = &from;
  for (const auto& key : path) {
    if (!at->is_object())
      return nullptr;
    auto it = at->find(key);
    if (it == at->end())
      return nullptr;
    at = &*it;
  }
  return *at;
}

} // namespace

run_column find_run_column(std::string_view name) {
  auto it = run_columns().find(name);
  return it == run_columns().end() ? nullptr : it->second;
}

std::variant<run_filter, filter_error>
run_filter::parse(const json& group, const std::string& path) {
  run_filter f;
  f.nodes_.emplace_back();
  parser p{f.nodes_, std::nullopt};
  if (!group.is_object())
    return filter_error{path, "expected an object"};
  if (!group.contains("kind")) {
    // The table's root group sometimes leaves out its kind.
    auto root = group;
    root["kind"] = "group";
    if (!root.contains("conjunction"))
      root["conjunction"] = "and";
    if (!p.parse(root, path, 0, 0))
      return *p.error;
    return f;
  }
  if (!p.parse(group, path, 0, 0))
    return *p.error;
  if (!f.nodes_[0].is_group)
    return filter_error{path + ".kind", "expected \"group\""};
  return f;
}

bool run_filter::matches(const json& run) const {
  return nodes_.empty() || eval(0, run);
}

bool run_filter::eval(size_t i, const json& run) const {
  const auto& n = nodes_[i];
  if (n.is_group) {
    if (n.children.empty())
      return true;
    for (auto c : n.children) {
      bool taken = eval(c, run);
      if (taken == n.conjunction_or)
        return taken;
    }
    return !n.conjunction_or;
  }
  json have;
  switch (n.where) {
  case location::run:
  case location::experiment:
    have = n.column(run);
    break;
  case location::hyperparameter:
    have = walk(run_field(run, "hyperparameters"), n.path);
    break;
  case location::metric:
    have = walk(run_field(run, "summaryMetrics"), n.path);
    break;
  case location::metadata:
    break;
  }
  if (n.oper == op::empty)
    return is_empty_value(have);
  if (n.oper == op::not_empty)
    return !is_empty_value(have);
  if (n.value.is_null())
    return true; // upstream: a field without a value takes every row
  if (have.is_null())
    return false; // SQL's NULL compares to nothing
  if (n.oper == op::contains)
    return contains_text(have, lower(as_text(n.value)));
  if (n.oper == op::not_contains)
    return !contains_text(have, lower(as_text(n.value)));
  bool is_state =
      n.where == location::run && n.column == find_run_column("state");
  return compare(have, n.oper, n.value, is_state);
}

} // namespace det::read
