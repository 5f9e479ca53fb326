#pragma once

// One AWS Query-protocol service (EC2, CloudFormation, CloudWatch, ...):
// call(action, params) POSTs the form-encoded parameters, signed with SigV4,
// retries throttling, 5xx and connection failures with backoff, and returns
// the parsed response document or a typed aws error (aws_error.hpp).
// Thread-safe if its net::http_client and credential_provider are; call()
// blocks the calling thread for the whole retry loop, so never call it on an
// actor thread.

#include "aws/credential_provider.hpp"
#include "aws/environment.hpp"
#include "aws/retry.hpp"
#include "aws/sigv4.hpp"
#include "aws/xml.hpp"
#include "net/http_client.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace det::aws {

struct query_api_config {
  /// SigV4 service name and endpoint prefix: "ec2", "cloudformation", ...
  std::string service = "ec2";
  /// The API version sent with every action.
  std::string version = "2016-11-15";
  std::string region = "us-east-1";
  /// Empty: resolve_endpoint() decides.
  std::string endpoint_url;
  std::chrono::milliseconds timeout{30'000};
  retry_policy retry;
};

/// The endpoint a service is reached at, first match wins: `configured`,
/// AWS_ENDPOINT_URL_<SERVICE> (e.g. AWS_ENDPOINT_URL_EC2), AWS_ENDPOINT_URL,
/// then https://<service>.<region>.amazonaws.com/.
std::string resolve_endpoint(const std::string& service,
                             const std::string& region,
                             const std::string& configured,
                             const env_lookup& env);

class query_api {
public:
  using wall_clock = std::function<std::chrono::system_clock::time_point()>;

  /// `config.endpoint_url` must be set (see resolve_endpoint).
  query_api(query_api_config config, std::shared_ptr<net::http_client> http,
            std::shared_ptr<credential_provider> creds,
            retry_clock clock = retry_clock::real(),
            wall_clock now = std::chrono::system_clock::now);

  /// Runs `action` with `params` (names like "InstanceId.1", values
  /// unencoded). Returns the root element of the success response.
  [[nodiscard]] caf::expected<xml_element> call(const std::string& action,
                                                const param_list& params);

  const query_api_config& config() const { return config_; }

private:
  caf::expected<xml_element> attempt(const std::string& action,
                                     const std::string& body,
                                     const net::url_parts& url);

  query_api_config config_;
  std::shared_ptr<net::http_client> http_;
  std::shared_ptr<credential_provider> creds_;
  retry_clock clock_;
  wall_clock now_;
};

} // namespace det::aws
