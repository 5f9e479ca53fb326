#include "aws/cloudwatch_client.hpp"

#include "aws/query_api.hpp"

#include <cstdio>
#include <ctime>

namespace det::aws {

namespace {

std::string iso8601_ms(int64_t ms) {
  auto secs = static_cast<time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const std::string action_prefix = "Action=PutMetricData&Version=2010-08-01";

size_t encoded_size(const param_list& params) {
  size_t n = 0;
  for (const auto& [k, v] : params)
    n += 2 + uri_encode(k).size() + uri_encode(v).size();
  return n;
}

class query_cloudwatch_client final : public cloudwatch_client {
public:
  explicit query_cloudwatch_client(query_api api) : api_(std::move(api)) {}

  caf::error put_metric_data(const std::string& name_space,
                             const std::vector<metric_datum>& datums) override {
    param_list params{{"Namespace", name_space}};
    for (size_t i = 0; i < datums.size(); ++i)
      for (auto& p : datum_params(datums[i], i + 1))
        params.push_back(std::move(p));
    auto r = api_.call("PutMetricData", params);
    return r ? caf::error{} : r.error();
  }

private:
  query_api api_;
};

} // namespace

param_list datum_params(const metric_datum& d, size_t index) {
  auto base = "MetricData.member." + std::to_string(index) + ".";
  param_list out{{base + "MetricName", d.name},
                 {base + "Value", number(d.value)},
                 {base + "Unit", d.unit.empty() ? "None" : d.unit},
                 {base + "Timestamp", iso8601_ms(d.timestamp_ms)}};
  for (size_t k = 0; k < d.dimensions.size(); ++k) {
    auto dim = base + "Dimensions.member." + std::to_string(k + 1) + ".";
    out.emplace_back(dim + "Name", d.dimensions[k].first);
    out.emplace_back(dim + "Value", d.dimensions[k].second);
  }
  return out;
}

std::string encode_put_metric_data(const std::string& name_space,
                                   const std::vector<metric_datum>& datums) {
  std::string body = action_prefix + "&Namespace=" + uri_encode(name_space);
  for (size_t i = 0; i < datums.size(); ++i)
    for (const auto& [k, v] : datum_params(datums[i], i + 1))
      body += "&" + uri_encode(k) + "=" + uri_encode(v);
  return body;
}

std::vector<std::vector<metric_datum>>
split_metric_data(const std::string& name_space,
                  const std::vector<metric_datum>& datums,
                  const metric_limits& limits) {
  std::vector<std::vector<metric_datum>> calls;
  auto head = action_prefix.size() + 11 + uri_encode(name_space).size();
  std::vector<metric_datum> cur;
  size_t bytes = head;
  for (const auto& d : datums) {
    // Sized at the index it would take in the current call (the index's
    // digits count too).
    auto size = encoded_size(datum_params(d, cur.size() + 1));
    if (!cur.empty()
        && (cur.size() >= limits.max_datums
            || bytes + size > limits.max_body_bytes)) {
      calls.push_back(std::move(cur));
      cur.clear();
      bytes = head;
      size = encoded_size(datum_params(d, 1));
    }
    cur.push_back(d);
    bytes += size;
  }
  if (!cur.empty())
    calls.push_back(std::move(cur));
  return calls;
}

std::shared_ptr<cloudwatch_client> make_cloudwatch_client(
    cloudwatch_client_config config, std::shared_ptr<credential_provider> creds,
    const env_lookup& env, std::shared_ptr<net::http_client> http) {
  query_api_config qc;
  qc.service = "monitoring";
  qc.version = "2010-08-01";
  qc.region = config.region;
  qc.endpoint_url =
      resolve_endpoint("monitoring", config.region, config.endpoint_url, env);
  qc.timeout = config.timeout;
  // The publisher keeps what failed for its next round; a short budget
  // here keeps one round from holding its thread for a minute.
  qc.retry.max_attempts = 3;
  qc.retry.max_total = std::chrono::seconds{10};
  if (!http)
    http = net::make_curl_http_client();
  return std::make_shared<query_cloudwatch_client>(
      query_api{std::move(qc), std::move(http), std::move(creds)});
}

} // namespace det::aws
