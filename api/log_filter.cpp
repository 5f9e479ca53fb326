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

} // namespace

bool log_filter::passes(const log_line& l) const {
  if (!ranks.empty()
      && std::find(ranks.begin(), ranks.end(), -1) == ranks.end())
    return false;
  return listed(agents, l.agent_id) && listed(containers, l.agent_id)
         && listed(stdtypes, line_stdtype) && listed(sources, line_source);
}

std::optional<log_filter> log_filter_of(const http::query_params& query,
                                        std::string& why) {
  log_filter f;
  f.agents = query.get_all("agentIds");
  f.containers = query.get_all("containerIds");
  f.stdtypes = query.get_all("stdtypes");
  f.sources = query.get_all("sources");
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

} // namespace det::api
