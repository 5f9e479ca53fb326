#include "metrics/master_metrics.hpp"

#include "metrics/registry.hpp"

namespace det::metrics {

namespace {

struct instruments {
  histogram append_latency = global_registry().make_histogram(
      "det_event_log_append_seconds",
      "Event-log append latency: from submission to durable acknowledgement.",
      {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
       5});
  counter calls = global_registry().make_counter(
      "det_provisioner_api_calls_total",
      "Cloud API calls made by resource pool provisioners.");
  counter errors = global_registry().make_counter(
      "det_provisioner_api_errors_total",
      "Cloud API calls made by resource pool provisioners that failed.");
};

const instruments& get() {
  static instruments i;
  return i;
}

} // namespace

void observe_append_latency(double seconds) {
  get().append_latency.observe(seconds);
}

void count_provisioner_call(const std::string& pool,
                            const std::string& operation, bool ok) {
  labels ls{{"operation", operation}, {"pool", pool}};
  get().calls.inc(ls);
  if (!ok)
    get().errors.inc(ls);
}

void register_master_metrics() {
  get();
}

} // namespace det::metrics
