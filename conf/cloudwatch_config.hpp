#pragma once

// The `cloudwatch:` section of master.yaml and agent.yaml: shipping this
// instance's journald and own log lines to CloudWatch Logs and its metrics
// to CloudWatch (docs/cloudwatch.md). Off unless enabled; det-deploy's
// --cloudwatch-logs turns it on for the master, and a pool's provider
// `log_group` for that pool's agents.

#include "conf/reader.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace det::conf {

struct cloudwatch_config {
  bool enabled = false;
  /// "" = AWS_REGION, AWS_DEFAULT_REGION, the profile, then IMDS.
  std::string region;
  /// "" = AWS; e.g. http://127.0.0.1:5000 for moto (both services).
  std::string endpoint_url;
  std::string log_group = "/determined/determined/journald";
  /// "" = the EC2 instance id (IMDS), else the host name.
  std::string log_stream;
  /// The Cluster dimension ("" = the master's cluster_id; for an agent,
  /// DET_CLUSTER_ID or "unknown").
  std::string cluster_id;
  bool journald = true;
  std::string journalctl = "journalctl";
  /// auto: when journald does not already have them (not run by systemd
  /// with stdout to the journal, or journald off).
  std::string own_logs = "auto"; ///< auto | true | false
  /// "" = /var/lib/determined/<program>-cloudwatch.cursor.
  std::string cursor_file;
  int64_t max_queued_events = 50'000;
  std::chrono::milliseconds flush_interval{std::chrono::seconds{2}};
  bool metrics = true;
  std::chrono::milliseconds metrics_interval{std::chrono::seconds{60}};
  std::string metrics_namespace = "Determined";
  /// "" = no GPU metrics.
  std::string nvidia_smi = "nvidia-smi";
};

/// Reads the object `r` reads (errors name cloudwatch.<field>).
void read_cloudwatch(object_reader& r, cloudwatch_config& out);

} // namespace det::conf
