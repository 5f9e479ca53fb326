#include "telemetry/master_cloudwatch.hpp"

#include "telemetry/cluster_gauges.hpp"

#include <future>

namespace det::telemetry {

caf::expected<std::unique_ptr<cloudwatch_telemetry>>
start_master_cloudwatch(const conf::cloudwatch_config& cfg,
                        const std::string& cluster_id,
                        std::shared_ptr<read::read_model> reads) {
  if (!cfg.enabled)
    return std::unique_ptr<cloudwatch_telemetry>{};
  // Runs on the publisher's thread: a read on a replica, waited for at
  // most 5 s (a busy replica costs one round of gauges, never the API).
  auto gauges = [reads, cluster_id](int64_t now) {
    auto out = std::make_shared<std::promise<std::vector<aws::metric_datum>>>();
    auto fut = out->get_future();
    reads->read(
        0, std::chrono::steady_clock::now() + std::chrono::seconds{5},
        [out, cluster_id, now](const read::read_view& v) {
          out->set_value(cluster_gauges(v.state, cluster_id, now));
        },
        [out](int64_t, const std::string&) { out->set_value({}); });
    if (fut.wait_for(std::chrono::seconds{6}) != std::future_status::ready)
      return std::vector<aws::metric_datum>{};
    return fut.get();
  };
  return cloudwatch_telemetry::start(cfg, {"det-master", cluster_id, "master"},
                                     gauges);
}

} // namespace det::telemetry
