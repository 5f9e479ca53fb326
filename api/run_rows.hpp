#pragma once

// A run (a trial) as upstream 0.38's Runs API shows it: one v1FlatRun row,
// rendered from the state; the search, the filter (read/run_filter.hpp)
// and the actions of api/run_routes.cpp all read this one form. Pure; any
// thread.

#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace det::api {

/// A run's state as upstream's runs table keeps it: ACTIVE until it ends
/// (however it waits or runs), PAUSED with its experiment.
std::string run_state_name(const state::trial_info& t,
                           const state::experiment_info& e);

/// A run as upstream's v1FlatRun, its duration counted to `now_us` while
/// it runs.
nlohmann::json flat_run(const state::cluster_state& s,
                        const state::trial_info& t,
                        const state::experiment_info& e, int64_t now_us);

} // namespace det::api
