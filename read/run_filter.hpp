#pragma once

// The columns of a run that upstream's run table sorts and filters by,
// and the filter it sends: `{"filterGroup": {...}, "showArchived": bool}`,
// a tree of groups ("and"/"or" over children) and fields (a column at a
// location, an operator and a value). Both read a run as its flat JSON
// (upstream's v1FlatRun, rendered by api/run_routes.cpp), so what a filter
// takes is what the table shows.
//
// Semantics follow upstream's SQL, row by row:
//  - a field with no value (and an operator other than isEmpty/notEmpty)
//    and a group with no children take every run;
//  - isEmpty takes a null, "" or [] value; notEmpty the rest;
//  - contains/notContains compare text without regard to case, and take
//    a list (tags) when any element contains the text;
//  - a run that has no value in the column (a hyperparameter it lacks, a
//    metric never reported) is taken by isEmpty only, as SQL's NULL is;
//  - numbers compare as numbers (a number written as text too), other
//    values as text, so ISO-8601 times compare in time order.
// Locations: LOCATION_TYPE_RUN (the columns below), _EXPERIMENT (the
// experiment's columns a run shows), _RUN_HYPERPARAMETERS and
// _HYPERPARAMETERS (the run's value; a nested one by "a.b", "hp." prefix
// optional), _VALIDATIONS, _TRAINING and _CUSTOM_METRIC ("group.name.
// qualifier" over the run's summaryMetrics, qualifier min, max, mean or
// last), and _RUN_METADATA (runs carry none here: only isEmpty takes).
//
// Hostile input: every part is checked when parsed, and a refusal names
// the field by its path ("filter.filterGroup.children[2].operator"); the
// tree is bounded in depth and size. Pure; any thread.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace det::read {

/// Reads one column's value from a run's flat JSON (null when it has none).
using run_column = nlohmann::json (*)(const nlohmann::json& run);

/// The LOCATION_TYPE_RUN column `name` (as upstream's sort and filter name
/// it: "id", "experimentName", "state", "checkpointSize", ...), or nullptr.
run_column find_run_column(std::string_view name);

/// Bounds of a filter: nesting of groups, and fields and groups in all.
constexpr size_t max_filter_depth = 16;
constexpr size_t max_filter_nodes = 256;

/// A refusal of a filter: the field's path and what is wrong with it.
struct filter_error {
  std::string field;
  std::string message;
};

class run_filter {
public:
  /// Parses a filterGroup (a group node). `path` names it in refusals.
  static std::variant<run_filter, filter_error>
  parse(const nlohmann::json& group,
        const std::string& path = "filter.filterGroup");

  /// Whether `run` (a flat run's JSON) is taken.
  bool matches(const nlohmann::json& run) const;

  enum class location {
    run,
    experiment,
    hyperparameter,
    metric,
    metadata,
  };
  enum class op {
    eq,
    ne,
    lt,
    le,
    gt,
    ge,
    contains,
    not_contains,
    empty,
    not_empty
  };

  /// One node: a group (`children` into the node list) or a field.
  struct node {
    bool is_group = false;
    bool conjunction_or = false;
    std::vector<size_t> children;
    location where = location::run;
    run_column column = nullptr;   ///< run and experiment columns
    std::vector<std::string> path; ///< hyperparameter or metric keys
    op oper = op::eq;
    nlohmann::json value; ///< null: none given
  };

private:
  bool eval(size_t i, const nlohmann::json& run) const;
  std::vector<node> nodes_; ///< nodes_[0] is the root group
};

} // namespace det::read
