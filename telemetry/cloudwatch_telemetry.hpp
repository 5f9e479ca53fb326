#pragma once

// The CloudWatch shipping of one program (det-master or det-agent), built
// from its `cloudwatch:` config: the log shipper with its journald source
// and the program's own log lines (util/log's tap), and the metric
// publisher with this host's sampler plus what the program adds (the
// master's cluster gauges). Everything runs on threads of its own; start()
// returns at once (it reads IMDS for the instance id with a 1 s timeout
// when no log_stream is configured) and a CloudWatch that is slow or down
// never blocks the program (log_shipper.hpp, metric_publisher.hpp).
// Owned by main; stop() (or the destructor) drains the log queue for at
// most 5 s.

#include "aws/environment.hpp"
#include "conf/cloudwatch_config.hpp"
#include "telemetry/journald_source.hpp"
#include "telemetry/log_shipper.hpp"
#include "telemetry/metric_publisher.hpp"

#include <caf/expected.hpp>

#include <memory>
#include <string>

namespace det::telemetry {

struct telemetry_identity {
  /// "det-master" or "det-agent": names the own-lines prefix and the
  /// default cursor file.
  std::string program;
  std::string cluster_id;
  std::string pool;
};

class cloudwatch_telemetry {
public:
  /// errc::invalid_argument or the AWS error when the region or the
  /// credentials cannot be found.
  [[nodiscard]] static caf::expected<std::unique_ptr<cloudwatch_telemetry>>
  start(const conf::cloudwatch_config& cfg, const telemetry_identity& who,
        metric_publisher::collect_fn extra = nullptr,
        const aws::env_lookup& env = aws::process_environment());

  ~cloudwatch_telemetry();
  void stop();

  const std::string& stream() const { return stream_; }
  log_shipper& shipper() { return *shipper_; }

private:
  cloudwatch_telemetry() = default;

  std::string stream_;
  std::shared_ptr<log_shipper> shipper_;
  std::unique_ptr<journald_source> journald_;
  std::unique_ptr<metric_publisher> metrics_;
  bool tapped_ = false;
};

/// "<program>[<pid>]: <level> <message>": how an own log line is shipped.
std::string own_line(const std::string& program, int pid, const char* level,
                     std::string_view message);

/// Whether own lines go directly: "true", "false", or "auto" = not when
/// journald is shipped and this process's stderr is the journal
/// (systemd sets JOURNAL_STREAM then).
bool ship_own_lines(const conf::cloudwatch_config& cfg,
                    const aws::env_lookup& env);

} // namespace det::telemetry
