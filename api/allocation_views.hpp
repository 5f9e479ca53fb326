#pragma once

// Resource accounting in upstream's shapes: `det resources raw|aggregated|
// allocations` read /resources/allocation/* (CSV, outside /api/v1 as
// upstream keeps them) and, with --json, /api/v1/resources/allocation/*.
// Pure functions of the state's allocation history (state::
// allocation_record) and the time, run as state views; the JSON and the
// CSV routes render the same entries. The request's parameters are checked
// here too (window_of, aggregation_of), so the routes refuse a bad one
// with a 400 naming it before asking for the state.
//
// Where ours differ from upstream's (docs/api.md): one raw entry per
// allocation, kind "allocation" (the span the trial held its slots), where
// upstream splits a trial's time into training / validation /
// checkpointing spans from its reports, and no agent or instance rows;
// aggregates cover each day from the first allocation through today,
// where upstream's nightly job stops at yesterday. Allocations of logs
// written before the history was kept are not counted.

#include "http/http_message.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace det::api {

/// [after_us, before_us], microseconds since the epoch.
struct time_window {
  int64_t after_us = 0;
  int64_t before_us = 0;
};

/// Days since the epoch (UTC), both ends included, and how to group them.
struct aggregation {
  bool monthly = false;
  int64_t first_day = 0;
  int64_t last_day = 0;
};

/// timestamp_after and timestamp_before from the query (RFC 3339; the v1
/// route also takes timestampAfter / timestampBefore), or nothing and
/// `why`, naming the parameter.
std::optional<time_window> window_of(const http::query_params& q,
                                     std::string& why);

/// start_date, end_date ("YYYY-MM-DD", or "YYYY-MM" when monthly) and
/// period (RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY or _MONTHLY, or
/// their numbers 1 and 2) from the query (camelCase names too), or nothing
/// and `why`, naming the parameter.
std::optional<aggregation> aggregation_of(const http::query_params& q,
                                          std::string& why);

/// GET /api/v1/resources/allocation/raw: {"resourceEntries": [...]}.
nlohmann::json raw_allocation_response(const state::cluster_state& s,
                                       time_window w, int64_t now_us);

/// GET /resources/allocation/raw: the same entries as CSV (experiment_id,
/// kind, username, labels, slots, start_time, end_time, seconds).
std::string raw_allocation_csv(const state::cluster_state& s, time_window w,
                               int64_t now_us);

/// GET /resources/allocation/allocations-csv: one row per allocation
/// (allocation_id, task_type, username, workspace_name, experiment_id,
/// slots, start_time, end_time, imagepulling_time, slot_hours,
/// resource_pool), the slot hours counted inside the window: trials', then
/// tasks' (task_type COMMAND, NOTEBOOK, ...; no experiment) while the
/// state keeps them.
std::string allocations_csv(const state::cluster_state& s, time_window w,
                            int64_t now_us);

/// GET /api/v1/resources/allocation/aggregated: {"resourceEntries": [one
/// per day or month: slot-seconds in all, by user, label and pool]}.
nlohmann::json aggregated_allocation_response(const state::cluster_state& s,
                                              aggregation a, int64_t now_us);

/// GET /resources/allocation/aggregated: the same as CSV rows
/// (aggregation_type, aggregation_key, date, seconds).
std::string aggregated_allocation_csv(const state::cluster_state& s,
                                      aggregation a, int64_t now_us);

/// GET /tasks (upstream's legacy route): allocation id -> the live
/// allocation's summary in upstream's Go field names (task_id, name,
/// resources, ...), the same allocations as GET /api/v1/tasks.
nlohmann::json legacy_tasks_response(const state::cluster_state& s);

} // namespace det::api
