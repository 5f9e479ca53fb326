#pragma once

// ec2_client over the EC2 Query API (Version 2016-11-15): the production
// implementation, libcurl underneath. Thread-safe: concurrent calls share
// the query_api, whose curl client keeps one easy handle per call in flight.

#include "aws/credential_provider.hpp"
#include "aws/ec2_client.hpp"
#include "aws/environment.hpp"
#include "aws/query_api.hpp"

#include <memory>

namespace det::aws {

struct ec2_client_config {
  std::string region = "us-east-1";
  /// Empty: AWS_ENDPOINT_URL_EC2, AWS_ENDPOINT_URL, then the public endpoint
  /// of `region` (see resolve_endpoint).
  std::string endpoint_url;
  std::chrono::milliseconds timeout{30'000};
  retry_policy retry;
  /// TerminateInstances ids per call.
  size_t terminate_batch_size = 1000;
  /// Bound on the pages one describe call follows.
  int max_pages = 1000;
};

class query_ec2_client final : public ec2_client {
public:
  query_ec2_client(std::shared_ptr<query_api> api, ec2_client_config config);

  caf::expected<std::vector<instance>>
  run_instances(const run_instances_request& req) override;

  caf::expected<std::vector<instance>>
  describe_instances(const describe_instances_request& req) override;

  caf::expected<terminate_result>
  terminate_instances(const std::vector<std::string>& instance_ids) override;

  caf::error create_tags(const std::vector<std::string>& resource_ids,
                         const std::vector<ec2_tag>& tags) override;

  caf::expected<std::vector<spot_instance_request>>
  request_spot_instances(const spot_request_spec& spec) override;

  caf::expected<std::vector<spot_instance_request>>
  describe_spot_instance_requests(
      const describe_spot_requests_request& req) override;

  caf::expected<std::vector<security_group>>
  describe_security_groups(const std::vector<ec2_filter>& filters) override;

  caf::expected<std::vector<spot_cancel_result>> cancel_spot_instance_requests(
      const std::vector<std::string>& request_ids) override;

private:
  caf::error terminate_batch(const std::vector<std::string>& ids,
                             terminate_result& out);

  std::shared_ptr<query_api> api_;
  ec2_client_config config_;
};

/// The production client: curl transport, real clock, endpoint resolved
/// from `config` and `env`.
std::shared_ptr<ec2_client>
make_curl_ec2_client(ec2_client_config config,
                     std::shared_ptr<credential_provider> creds,
                     const env_lookup& env = process_environment());

/// The query_api an EC2 client of `config` uses; for tests that inject the
/// clock or the transport.
std::shared_ptr<query_api>
make_ec2_query_api(const ec2_client_config& config,
                   std::shared_ptr<credential_provider> creds,
                   std::shared_ptr<net::http_client> http, retry_clock clock,
                   const env_lookup& env = process_environment());

} // namespace det::aws
