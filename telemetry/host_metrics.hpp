#pragma once

// What one instance measures of itself for CloudWatch (namespace
// Determined): CPU and memory from /proc, and each GPU's utilisation and
// memory from
//   nvidia-smi --query-gpu=index,uuid,utilization.gpu,memory.used,
//              memory.total --format=csv,noheader,nounits
// when nvidia-smi is there. The parsers are pure; host_sampler keeps the
// previous /proc/stat reading (CPU use is a difference of two) and is used
// by one thread.
//
// Datums (dimensions Cluster, Pool, Instance; GPU ones also GPU = index):
//   CPUUtilization %, MemoryUtilization %, MemoryUsed Bytes,
//   GPUUtilization %, GPUMemoryUsed Megabytes, GPUMemoryUtilization %.

#include "aws/cloudwatch_client.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace det::telemetry {

struct cpu_times {
  uint64_t busy = 0;
  uint64_t total = 0;
};

/// The aggregate "cpu " line of /proc/stat (idle and iowait count as idle).
[[nodiscard]] std::optional<cpu_times> parse_proc_stat(std::string_view text);

/// Busy share between two readings, in percent; nullopt when no time
/// passed.
[[nodiscard]] std::optional<double> cpu_percent(const cpu_times& before,
                                                const cpu_times& after);

struct memory_info {
  uint64_t total_bytes = 0;
  uint64_t available_bytes = 0;
};

/// MemTotal and MemAvailable of /proc/meminfo.
[[nodiscard]] std::optional<memory_info> parse_meminfo(std::string_view text);

struct gpu_sample {
  std::string index;
  std::string uuid;
  std::optional<double> utilization_percent;
  std::optional<double> memory_used_mib;
  std::optional<double> memory_total_mib;
};

/// nvidia-smi's CSV as queried above, one GPU a line; "[N/A]" and other
/// values that are not numbers leave the field unset. Lines that do not
/// have five fields are skipped.
[[nodiscard]] std::vector<gpu_sample>
parse_nvidia_smi_csv(std::string_view text);

/// The query above.
std::vector<std::string> nvidia_smi_argv(const std::string& nvidia_smi);

using dimension_list = std::vector<std::pair<std::string, std::string>>;

struct host_sampler_options {
  std::string proc_root = "/proc";
  /// "" = no GPU metrics.
  std::string nvidia_smi = "nvidia-smi";
  dimension_list dimensions;
};

class host_sampler {
public:
  explicit host_sampler(host_sampler_options opts);

  /// The datums of this moment, stamped `now_ms`. CPU shows from the
  /// second call on (it needs two readings).
  std::vector<aws::metric_datum> sample(int64_t now_ms);

private:
  host_sampler_options opts_;
  std::optional<cpu_times> last_cpu_;
  bool gpus_absent_ = false;
};

/// The datums of `gpus` with `dims` (plus GPU = index), stamped `now_ms`.
std::vector<aws::metric_datum> gpu_datums(const std::vector<gpu_sample>& gpus,
                                          const dimension_list& dims,
                                          int64_t now_ms);

} // namespace det::telemetry
