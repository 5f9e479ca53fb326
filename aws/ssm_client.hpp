#pragma once

// The one SSM call det-deploy makes: GetParameters, over SSM's JSON protocol
// (POST with X-Amz-Target: AmazonSSM.GetParameters, application/x-amz-json-
// 1.1), signed with SigV4 and retried like the Query API. det-deploy reads
// the public parameters AWS keeps the latest AMIs under
// (/aws/service/debian/release/12/latest/amd64, ...) to choose the agents'
// AMIs. Blocks its thread (retries included); thread-safe if its
// http_client and credential_provider are.

#include "aws/credential_provider.hpp"
#include "aws/environment.hpp"
#include "aws/retry.hpp"
#include "net/http_client.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace det::aws {

struct ssm_client_config {
  std::string region = "us-east-1";
  /// Empty: AWS_ENDPOINT_URL_SSM, AWS_ENDPOINT_URL, then the public one.
  std::string endpoint_url;
  std::chrono::milliseconds timeout{30'000};
  retry_policy retry;
};

struct ssm_parameters {
  /// Name -> value of the parameters that exist.
  std::map<std::string, std::string> values;
  /// The names SSM does not know (InvalidParameters).
  std::vector<std::string> missing;
};

class ssm_client {
public:
  virtual ~ssm_client() = default;

  /// The values of `names` (at most 10 per call: SSM's limit).
  [[nodiscard]] virtual caf::expected<ssm_parameters>
  get_parameters(const std::vector<std::string>& names) = 0;
};

/// GetParameters' response body -> ssm_parameters; errc::remote_error
/// (server_error, MalformedResponse) when it is not the JSON SSM sends.
[[nodiscard]] caf::expected<ssm_parameters>
parse_get_parameters(const std::string& body);

/// The production client: curl transport, real clocks; `http` and `clock`
/// may be replaced by tests.
std::shared_ptr<ssm_client>
make_curl_ssm_client(ssm_client_config config,
                     std::shared_ptr<credential_provider> creds,
                     const env_lookup& env = process_environment(),
                     std::shared_ptr<net::http_client> http = nullptr,
                     retry_clock clock = retry_clock::real());

} // namespace det::aws
