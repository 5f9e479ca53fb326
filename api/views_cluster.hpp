#pragma once

// The state in the upstream REST shapes the det CLI reads for agents,
// slots, tasks, trials, checkpoints and resource pools (the remaining ones
// are in views.hpp). Pure functions of a cluster_state, run inside the
// master as state_views. Lists take upstream pagination (offset, limit 0 =
// all) and answer {"pagination": {offset, limit, startIndex, endIndex,
// total}} so that the CLI's paginated reads end.

#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "read/read_model.hpp"

namespace det::api {

struct page {
  int64_t offset = 0;
  int64_t limit = 0; ///< 0: everything from offset
};

/// Upstream's pagination object for page `p` of `total` items: {offset,
/// limit, startIndex, endIndex, total}. The one renderer of it: lists that
/// are not paged answer pagination_of({}, n).
nlohmann::json pagination_of(page p, int64_t total);

/// The page [offset, offset + limit) of `total` items, clamped: [start,
/// end).
std::pair<int64_t, int64_t> page_bounds(int64_t total, page p);

/// A v1MetricsWorkload: `metrics` as avgMetrics at `steps`, reported at
/// `at_us`.
nlohmann::json metrics_workload(const nlohmann::json& metrics, int64_t steps,
                                int64_t at_us);

/// A checkpoint's state as upstream's checkpointv1State names it
/// (STATE_COMPLETED, STATE_DELETED, STATE_PARTIALLY_DELETED).
const char* checkpoint_state_name(const state::checkpoint_info& c);

/// Cuts `list` to the page and wraps it as {key: [...], "pagination": ...}.
nlohmann::json paginate(const char* key, nlohmann::json list, page p);

/// GET /api/v1/agents: {"agents": [v1Agent], "pagination"}.
nlohmann::json agents_response(const state::cluster_state& s, page p);

/// One agent as GET /api/v1/agents lists it (v1Agent: slots, containers).
nlohmann::json agent_json(const state::cluster_state& s,
                          const state::agent_info& a);

/// GET /api/v1/tasks: {"allocationIdToSummary": {id: v1AllocationSummary}}.
nlohmann::json tasks_response(const state::cluster_state& s);

/// GET /api/v1/trials/{id}: {"trial": ...}; null when absent.
nlohmann::json trial_response(const state::cluster_state& s, int64_t id);

/// The order and states of a checkpoint list, as upstream's query has
/// them: `sortByAttr` (SORT_BY_BATCH_NUMBER, _UUID, _TRIAL_ID, _END_TIME,
/// _STATE, _SEARCHER_METRIC), or `sortByMetric` (a validation metric's
/// name), `orderBy` (ORDER_BY_ASC or _DESC) and `states` (STATE_...; none:
/// every state). Nothing given: newest first. Values a checkpoint lacks
/// sort last in either order.
struct checkpoint_order {
  std::string attr;   ///< "" unless sortByAttr was given
  std::string metric; ///< "" unless sortByMetric was given
  bool descending = false;
  std::vector<std::string> states;
};

/// GET /api/v1/experiments/{id}/checkpoints, in order `o`; null when the
/// experiment is absent.
nlohmann::json experiment_checkpoints_response(const state::cluster_state& s,
                                               int64_t id, page p,
                                               const checkpoint_order& o = {});

/// GET /api/v1/trials/{id}/checkpoints: every checkpoint of the trial
/// (deleted ones too, as upstream lists them), in order `o`; null when
/// the trial is absent.
nlohmann::json trial_checkpoints_response(const state::cluster_state& s,
                                          int64_t id, page p,
                                          const checkpoint_order& o = {});

/// GET /api/v1/checkpoints/{uuid}: {"checkpoint": v1Checkpoint}; null when
/// absent.
nlohmann::json checkpoint_response(const state::cluster_state& s,
                                   const std::string& uuid);

/// GET /api/v1/resource-pools: {"resourcePools": [v1ResourcePool], ...}
/// with provider, instance counts by state and slot counts.
nlohmann::json resource_pools_response(const state::cluster_state& s,
                                       const std::string& default_pool, page p);

/// The CLI's filters of GET /api/v1/experiments.
struct experiment_filter {
  /// Owners; empty: all.
  std::vector<std::string> users;
  /// Only archived (true) or only not archived (false); none: both.
  std::optional<bool> archived;
};

/// GET /api/v1/experiments, filtered and paged, oldest experiments first.
nlohmann::json experiments_page(const state::cluster_state& s,
                                const experiment_filter& f, page p);

/// How a page's text goes out.
enum class body_coding { identity, gzip };

/// The same pages as text, each row taken from the replica's fragments
/// (rendered once per change of its record): byte for byte the dump() of
/// experiments_page / agents_response, or, with body_coding::gzip, that
/// text as one gzip member. The text is the one the fragments keep,
/// shared (read::fragments::answer).
std::shared_ptr<const std::string>
experiments_page_text(const read::read_view& v, const experiment_filter& f,
                      page p, body_coding coding = body_coding::identity);
/// {"experiments":[...],"pagination":...} of page `p` of `items`, each
/// row from the replica's fragments.
std::string
experiment_rows_text(const read::read_view& v,
                     const std::vector<const state::experiment_info*>& items,
                     page p, body_coding coding = body_coding::identity);
std::shared_ptr<const std::string>
agents_page_text(const read::read_view& v, page p,
                 body_coding coding = body_coding::identity);

} // namespace det::api
