#pragma once

// What det-inspect shows, as JSON computed from a cluster_state: one pure
// function per subcommand. The master's /api/v1/inspect/{kind} routes and
// det-inspect --db both call these, so the two modes print the same thing.
// Each view is an object of named row arrays ({"agents": [...]}; instances
// also carries "launch_errors"); rows are flat objects of strings, numbers,
// booleans and nulls, with times as RFC 3339 UTC strings.

#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace det::inspection {

enum class view_kind {
  pools,
  agents,
  instances,
  experiments,
  trials,
  checkpoints,
  /// Workspaces, projects, templates, models (inspect/records_rows.hpp).
  records
};

/// "pools", "agents", ...
const char* to_string(view_kind k);

/// nullopt when `name` names no view.
std::optional<view_kind> view_kind_from(const std::string& name);

/// "pools, agents, instances, experiments, trials, checkpoints, records".
std::string view_kind_names();

/// The view of `s`.
nlohmann::json view(const state::cluster_state& s, view_kind k);

/// A table's column: the row key and its header.
struct column {
  std::string key;
  std::string header;
};

/// The tables of a view, in print order: the rows' array name and columns.
std::vector<std::pair<std::string, std::vector<column>>>
view_tables(view_kind k);

/// RFC 3339 UTC with seconds ("2026-11-22T03:43:48Z"); null for 0.
nlohmann::json time_json(int64_t at_us);

/// A one-screen summary of a state: position, cluster id and per kind the
/// count by status ({"trials": {"total": 3, "RUNNING": 2, ...}}).
nlohmann::json summary(const state::cluster_state& s);

} // namespace det::inspection
