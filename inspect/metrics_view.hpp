#pragma once

// The cluster's gauges for GET /metrics, computed from a cluster_state:
// pools, agents by status, slots used/free per pool, instances by state per
// pool, trials and experiments by state, and the log position. Every state
// of a closed set is listed (zeros included) so series do not vanish.
// Pure; runs inside the master actor as a state view.

#include "metrics/text_format.hpp"
#include "state/cluster_state.hpp"

#include <vector>

namespace det::inspection {

std::vector<metrics::family> state_families(const state::cluster_state& s);

} // namespace det::inspection
