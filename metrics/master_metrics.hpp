#pragma once

// The master's own instruments in the global registry, named once here so
// every caller and the documentation agree:
//
//   det_event_log_append_seconds     histogram: submission of an append to
//                                    its durable acknowledgement
//   det_provisioner_api_calls_total  counter {pool, operation}: cloud API
//                                    calls made by a pool's provisioner
//   det_provisioner_api_errors_total counter {pool, operation}: those that
//                                    failed
//
// Thread-safe; callable from any thread.

#include <string>

namespace det::metrics {

void observe_append_latency(double seconds);

/// One cloud API call by `pool`'s provisioner ("RunInstances",
/// "DescribeInstances", ...); `ok` false counts it as an error too.
void count_provisioner_call(const std::string& pool,
                            const std::string& operation, bool ok);

/// Registers the families above (so /metrics shows them before the first
/// update). Idempotent.
void register_master_metrics();

} // namespace det::metrics
