#include "api/log_filter.hpp"

#include <algorithm>
#include <set>

namespace det::api {

namespace {

/// What each line says of itself: the agent it ran on is its container
/// (as log_json shows it), its output is stdout from the task.
constexpr const char* line_stdtype = "stdout";
constexpr const char* line_source = "task";

bool listed(const std::vector<std::string>& xs, const std::string& x) {
  return xs.empty() || std::find(xs.begin(), xs.end(), x) != xs.end();
}

/// The filters other than allocations for a line of `agent` from
/// `source` (no rank, stdout).
bool passes_common(const log_filter& f, const std::string& agent,
                   const std::string& source) {
  if (!f.ranks.empty()
      && std::find(f.ranks.begin(), f.ranks.end(), -1) == f.ranks.end())
    return false;
  return listed(f.agents, agent) && listed(f.containers, agent)
         && listed(f.stdtypes, line_stdtype) && listed(f.sources, source);
}

} // namespace

bool log_filter::passes(const log_line& l) const {
  return passes_common(*this, l.agent_id, line_source);
}

bool log_filter::passes(const task_log_line& l,
                        const std::string& allocation) const {
  return passes_common(*this, l.agent_id, task_line_source(l))
         && listed(allocations, allocation);
}

std::string task_line_source(const task_log_line& l) {
  return l.source.empty() ? line_source : l.source;
}

std::optional<log_filter> log_filter_of(const http::query_params& query,
                                        std::string& why) {
  log_filter f;
  f.agents = query.get_all("agentIds");
  f.containers = query.get_all("containerIds");
  f.stdtypes = query.get_all("stdtypes");
  f.sources = query.get_all("sources");
  f.allocations = query.get_all("allocationIds");
  for (const auto& text : query.get_all("rankIds")) {
    size_t used = 0;
    int64_t rank = 0;
    try {
      rank = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (text.empty() || used != text.size()) {
      why = "rankIds: '" + text.substr(0, 32) + "' is not an integer";
      return std::nullopt;
    }
    f.ranks.push_back(rank);
  }
  return f;
}

nlohmann::json log_fields(const std::vector<log_line>& lines) {
  std::set<std::string> agents;
  for (const auto& l : lines)
    agents.insert(l.agent_id);
  nlohmann::json any = lines.empty() ? nlohmann::json::array()
                                     : nlohmann::json::array({line_stdtype});
  return {{"agentIds", agents},
          {"containerIds", agents},
          {"rankIds", nlohmann::json::array()},
          {"stdtypes", any},
          {"sources", lines.empty() ? nlohmann::json::array()
                                    : nlohmann::json::array({line_source})}};
}

nlohmann::json task_log_fields(const std::vector<task_log_line>& lines,
                               const std::string& allocation) {
  std::set<std::string> agents, sources;
  for (const auto& l : lines) {
    agents.insert(l.agent_id);
    sources.insert(task_line_source(l));
  }
  auto none = nlohmann::json::array();
  return {{"agentIds", agents},
          {"containerIds", agents},
          {"allocationIds",
           lines.empty() ? none : nlohmann::json::array({allocation})},
          {"rankIds", none},
          {"stdtypes",
           lines.empty() ? none : nlohmann::json::array({line_stdtype})},
          {"sources", sources}};
}

} // namespace det::api
