#pragma once

// The filters and order of GET /api/v1/experiments, in upstream's query
// parameters: users, archived (true or false), states (STATE_ACTIVE, ...), name
// (a case-insensitive part of it), labels (every one given), sortBy
// (SORT_BY_ID, SORT_BY_NAME, SORT_BY_STATE, SORT_BY_START_TIME,
// SORT_BY_END_TIME, SORT_BY_PROGRESS, SORT_BY_USER, SORT_BY_NUM_TRIALS) and
// orderBy (ORDER_BY_ASC, ORDER_BY_DESC). Without any: every experiment, oldest
// first (the CLI's list). Pure: the selection runs on a read replica's state.

#include "api/api_context.hpp"
#include "api/views_cluster.hpp"
#include "http/http_message.hpp"
#include "http/responder.hpp"
#include "http/router.hpp"
#include "read/read_model.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace det::api {

struct experiment_query {
  enum class sort_key {
    id,
    name,
    state,
    start_time,
    end_time,
    progress,
    user,
    num_trials
  };
  std::vector<std::string> users;
  std::vector<state::experiment_status> states;
  std::string name; ///< lower case; "" matches every name
  std::vector<std::string> labels;
  /// Only archived (true) or only not archived (false); none: both.
  std::optional<bool> archived;
  sort_key sort = sort_key::id;
  bool descending = false;
  /// Only the experiments of this project (projectId); 0: every project.
  int64_t project_id = 0;

  /// Only what the CLI's list asks (users, archived, oldest first): the
  /// list route answers it from its kept pages.
  [[nodiscard]] bool cli_list() const {
    return states.empty() && name.empty() && labels.empty()
           && sort == sort_key::id && !descending && project_id == 0;
  }
};

/// The query of `req`, or nullopt after answering 400 naming the bad
/// parameter and listing what it accepts.
[[nodiscard]] std::optional<experiment_query>
experiment_query_of(const http::http_request& req, const http::responder& res);

/// The experiments that match `q`, in its order (ties by id).
[[nodiscard]] std::vector<const state::experiment_info*>
select_experiments(const state::cluster_state& s, const experiment_query& q);

/// GET /api/v1/experiments: {"experiments": [...], "pagination": ...} for
/// page `p` of what `q` selects, only the page's rows rendered; without
/// filters or order byte for byte experiments_page(s, users, p).
[[nodiscard]] std::string experiments_query_text(const read::read_view& v,
                                                 const experiment_query& q,
                                                 page p);

/// The same as JSON from a state (no read model: tests of the routes).
[[nodiscard]] nlohmann::json
experiments_query_page(const state::cluster_state& s, const experiment_query& q,
                       page p);

/// Answers GET /api/v1/experiments for `q` and `p` from the read model (or
/// the master without one).
void answer_experiments_query(const std::shared_ptr<const api_context>& ctx,
                              const http::http_request& req,
                              http::responder res, experiment_query q, page p);

} // namespace det::api
