#pragma once

// det-master's CloudWatch shipping (master.yaml `cloudwatch:`): its
// journald and own log lines, this host's metrics, and the cluster gauges
// read from the read model (telemetry/cluster_gauges.hpp) each round.

#include "conf/cloudwatch_config.hpp"
#include "read/read_model.hpp"
#include "telemetry/cloudwatch_telemetry.hpp"

#include <caf/expected.hpp>

#include <memory>
#include <string>

namespace det::telemetry {

/// Null when cloudwatch.enabled is false; an error naming the field when
/// the region or the credentials cannot be found.
[[nodiscard]] caf::expected<std::unique_ptr<cloudwatch_telemetry>>
start_master_cloudwatch(const conf::cloudwatch_config& cfg,
                        const std::string& cluster_id,
                        std::shared_ptr<read::read_model> reads);

} // namespace det::telemetry
