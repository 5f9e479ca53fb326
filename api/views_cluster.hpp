#pragma once

// The state in the upstream REST shapes the det CLI reads for agents,
// slots, tasks, trials, checkpoints and resource pools (the remaining ones
// are in views.hpp). Pure functions of a cluster_state, run inside the
// master as state_views. Lists take upstream pagination (offset, limit 0 =
// all) and answer {"pagination": {offset, limit, startIndex, endIndex,
// total}} so that the CLI's paginated reads end.

#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <string>
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

/// Cuts `list` to the page and wraps it as {key: [...], "pagination": ...}.
nlohmann::json paginate(const char* key, nlohmann::json list, page p);

/// GET /api/v1/agents: {"agents": [v1Agent], "pagination"}.
nlohmann::json agents_response(const state::cluster_state& s, page p);

/// GET /api/v1/tasks: {"allocationIdToSummary": {id: v1AllocationSummary}}.
nlohmann::json tasks_response(const state::cluster_state& s);

/// GET /api/v1/trials/{id}: {"trial": ...}; null when absent.
nlohmann::json trial_response(const state::cluster_state& s, int64_t id);

/// GET /api/v1/trials/{id}/workloads: the latest training and validation
/// metrics and every checkpoint; null when the trial is absent.
nlohmann::json workloads_response(const state::cluster_state& s, int64_t id,
                                  page p);

/// GET /api/v1/experiments/{id}/checkpoints, newest first; null when the
/// experiment is absent.
nlohmann::json experiment_checkpoints_response(const state::cluster_state& s,
                                               int64_t id, page p);

/// GET /api/v1/checkpoints/{uuid}: {"checkpoint": v1Checkpoint}; null when
/// absent.
nlohmann::json checkpoint_response(const state::cluster_state& s,
                                   const std::string& uuid);

/// GET /api/v1/resource-pools: {"resourcePools": [v1ResourcePool], ...}
/// with provider, instance counts by state and slot counts.
nlohmann::json resource_pools_response(const state::cluster_state& s,
                                       const std::string& default_pool, page p);

/// GET /api/v1/experiments with the CLI's filters: `users` (empty = all)
/// and pagination, newest experiments last.
nlohmann::json experiments_page(const state::cluster_state& s,
                                const std::vector<std::string>& users, page p);

/// The same pages as text, each row taken from the replica's fragments
/// (rendered once per change of its record): byte for byte the dump() of
/// experiments_page / agents_response.
std::string experiments_page_text(const read::read_view& v,
                                  const std::vector<std::string>& users,
                                  page p);
std::string agents_page_text(const read::read_view& v, page p);

} // namespace det::api
