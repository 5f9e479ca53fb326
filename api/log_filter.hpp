#pragma once

// The filters of a trial's or task's log request as upstream's CLI, SDK
// and WebUI send them (agentIds, containerIds, rankIds, stdtypes, sources,
// each may repeat), and the fields a filter can take
// (GET .../logs/fields). Pure: the lines come in, the route answers.

#include "api/task_logs.hpp"
#include "api/trial_logs.hpp"
#include "http/http_message.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace det::api {

struct log_filter {
  std::vector<std::string> agents;
  std::vector<std::string> containers;
  std::vector<std::string> stdtypes;
  std::vector<std::string> sources;
  /// -1 asks for lines with no rank (every line kept here has none).
  std::vector<int64_t> ranks;
  /// A task's lines only (a trial's lines carry no allocation here).
  std::vector<std::string> allocations;

  /// Whether line `l` passes every filter given (none given: it passes).
  [[nodiscard]] bool passes(const log_line& l) const;
  /// The same for a task's line, of allocation `allocation`.
  [[nodiscard]] bool passes(const task_log_line& l,
                            const std::string& allocation) const;
};

/// The filters of `query`; a rankIds value that is not an integer is
/// refused with why ("rankIds: 'x' is not an integer").
[[nodiscard]] std::optional<log_filter>
log_filter_of(const http::query_params& query, std::string& why);

/// {"agentIds", "containerIds", "rankIds", "stdtypes", "sources"}: the
/// values `lines` hold, each once, sorted: every one of them, given as a
/// filter, passes some line.
[[nodiscard]] nlohmann::json log_fields(const std::vector<log_line>& lines);

/// The same for a task's lines (its output, and the master's lines about
/// it, source "master"), all of allocation `allocation`.
[[nodiscard]] nlohmann::json
task_log_fields(const std::vector<task_log_line>& lines,
                const std::string& allocation);

/// Where a task's line comes from: "master" for the master's own, else
/// "task".
[[nodiscard]] std::string task_line_source(const task_log_line& l);

} // namespace det::api
