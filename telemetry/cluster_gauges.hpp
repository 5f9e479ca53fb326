#pragma once

// The master's cluster gauges for CloudWatch, from a state of the read
// model: per pool (dimensions Cluster, Pool) SlotsUsed, SlotsFree,
// PendingTrials, and Instances with a State dimension for each instance
// state (pending, running, terminating; zeros included so a series does
// not stop). Pure; runs on a read replica's thread.

#include "aws/cloudwatch_client.hpp"
#include "state/cluster_state.hpp"

#include <string>
#include <vector>

namespace det::telemetry {

std::vector<aws::metric_datum> cluster_gauges(const state::cluster_state& s,
                                              const std::string& cluster_id,
                                              int64_t now_ms);

} // namespace det::telemetry
