#pragma once

// CloudWatch's PutMetricData (Query protocol, version 2010-08-01, SigV4
// service "monitoring"), and the pure split of a list of datums into calls
// within its limits: at most 1000 datums and 1 MB of request body per call.
// put_metric_data blocks the calling thread (query_api retries throttling
// and 5xx within its budget); thread-safe if the http_client and
// credential_provider are.

#include "aws/credential_provider.hpp"
#include "aws/environment.hpp"
#include "aws/sigv4.hpp"
#include "net/http_client.hpp"

#include <caf/error.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace det::aws {

struct metric_datum {
  std::string name;
  /// Name -> value, at most 30 (CloudWatch's limit).
  std::vector<std::pair<std::string, std::string>> dimensions;
  double value = 0;
  /// "Percent", "Bytes", "Megabytes", "Count", ... ("None" when empty).
  std::string unit;
  int64_t timestamp_ms = 0;
};

struct metric_limits {
  size_t max_datums = 1000;
  size_t max_body_bytes = 1'000'000;
};

/// The form parameters of datum number `index` (1-based) of a call:
/// MetricData.member.<index>.MetricName, .Value, .Unit, .Timestamp,
/// .Dimensions.member.<k>.Name/Value.
param_list datum_params(const metric_datum& d, size_t index);

/// The request body of one PutMetricData call (pure).
std::string encode_put_metric_data(const std::string& name_space,
                                   const std::vector<metric_datum>& datums);

/// `datums` cut, in order, into consecutive calls each within `limits`
/// (counting the body encode_put_metric_data makes), so the calls together
/// hold every datum once. A datum that alone exceeds the body limit goes
/// in a call of its own (CloudWatch refuses that call).
std::vector<std::vector<metric_datum>>
split_metric_data(const std::string& name_space,
                  const std::vector<metric_datum>& datums,
                  const metric_limits& limits = {});

class cloudwatch_client {
public:
  virtual ~cloudwatch_client() = default;

  /// One call: at most limits' worth of datums (split_metric_data).
  [[nodiscard]] virtual caf::error
  put_metric_data(const std::string& name_space,
                  const std::vector<metric_datum>& datums) = 0;
};

struct cloudwatch_client_config {
  std::string region = "us-east-1";
  /// Empty: AWS_ENDPOINT_URL_MONITORING, AWS_ENDPOINT_URL, the public one.
  std::string endpoint_url;
  std::chrono::milliseconds timeout{10'000};
};

std::shared_ptr<cloudwatch_client>
make_cloudwatch_client(cloudwatch_client_config config,
                       std::shared_ptr<credential_provider> creds,
                       const env_lookup& env = process_environment(),
                       std::shared_ptr<net::http_client> http = nullptr);

} // namespace det::aws
