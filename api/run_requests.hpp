#pragma once

// Internal to the Runs API (api/run_routes.cpp): what a request says of the
// runs it acts on, read and checked (a refusal is answered 400 naming the
// field): its runIds, its filter (JSON text: conditions as
// read/run_filter.hpp reads them, and showArchived) and its project; and
// the runs a filter takes. Which of them an action may act on the master
// decides (core/runs.hpp).

#include "http/responder.hpp"
#include "read/run_filter.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace det::api {

/// The parts of a run request the actions share.
struct run_request {
  std::vector<int64_t> ids; ///< runIds; empty: every run the filter takes
  bool filtered = false;    ///< a filter was given (runIds then empty)
  /// The filter's conditions; null: none (every run it may see).
  std::shared_ptr<const read::run_filter> conditions;
  bool show_archived = false;
  int64_t project_id = 0; ///< 0: any project
};

/// Answers 400 naming `field` and returns false.
bool refuse(const http::responder& res, const std::string& field,
            const std::string& why);

/// `body[key]` as a positive id; 0 when absent and not `required`.
bool id_field(const nlohmann::json& body, const char* key, bool required,
              const http::responder& res, int64_t& out);

/// The filter text: JSON with an optional filterGroup (conditions, as
/// read/run_filter.hpp reads them) and showArchived.
bool parse_filter(const nlohmann::json& body, const http::responder& res,
                  run_request& r);

/// runIds, filter and the project of an action's body.
std::optional<run_request>
parse_action(const std::optional<nlohmann::json>& body,
             const http::responder& res, const char* project_key);

/// The runs filter `r` takes, by id: what a search with it lists (every
/// page), for an action given a filter instead of runIds.
std::vector<int64_t> filtered_run_ids(const state::cluster_state& s,
                                      const run_request& r, int64_t now_us);

} // namespace det::api
