#pragma once

// The EC2 calls a resource pool's provisioner makes, as an interface so the
// provisioner is tested against fakes. Every call blocks its thread until
// EC2 answered (retries included): run them on the async_executor, never on
// an actor thread. Failures are aws errors (aws_error.hpp): errc::remote_error
// plus a kind (throttling, insufficient_capacity, quota, auth, bad_request,
// not_found, server_error, transport) and the EC2 code.

#include "aws/ec2_types.hpp"

#include <caf/error.hpp>
#include <caf/expected.hpp>

#include <string>
#include <vector>

namespace det::aws {

class ec2_client {
public:
  virtual ~ec2_client() = default;

  /// Launches instances; returns them as RunInstances reported them.
  [[nodiscard]] virtual caf::expected<std::vector<instance>>
  run_instances(const run_instances_request& req) = 0;

  /// Every matching instance, all pages followed.
  [[nodiscard]] virtual caf::expected<std::vector<instance>>
  describe_instances(const describe_instances_request& req) = 0;

  /// Terminates in batches; ids EC2 does not know are reported in
  /// not_found while the others are still terminated.
  [[nodiscard]] virtual caf::expected<terminate_result>
  terminate_instances(const std::vector<std::string>& instance_ids) = 0;

  /// Sets `tags` on every resource in `resource_ids`.
  [[nodiscard]] virtual caf::error
  create_tags(const std::vector<std::string>& resource_ids,
              const std::vector<ec2_tag>& tags) = 0;

  [[nodiscard]] virtual caf::expected<std::vector<spot_instance_request>>
  request_spot_instances(const spot_request_spec& spec) = 0;

  /// Every matching spot request, all pages followed.
  [[nodiscard]] virtual caf::expected<std::vector<spot_instance_request>>
  describe_spot_instance_requests(
      const describe_spot_requests_request& req) = 0;

  /// The security groups matching `filters` ("group-name", "vpc-id", ...),
  /// all pages followed.
  [[nodiscard]] virtual caf::expected<std::vector<security_group>>
  describe_security_groups(const std::vector<ec2_filter>& filters) = 0;

  /// Cancels the requests; their instances keep running (as on AWS).
  [[nodiscard]] virtual caf::expected<std::vector<spot_cancel_result>>
  cancel_spot_instance_requests(
      const std::vector<std::string>& request_ids) = 0;
};

} // namespace det::aws
