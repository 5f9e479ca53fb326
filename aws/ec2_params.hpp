#pragma once

// EC2 Query parameters of each call: the flattened, 1-based "Name.N.Sub"
// form. Pure functions; the ones that can reject their input fail with
// errc::invalid_argument naming the field.

#include "aws/ec2_types.hpp"
#include "aws/sigv4.hpp"

#include <caf/expected.hpp>

#include <string>
#include <vector>

namespace det::aws {

[[nodiscard]] caf::expected<param_list>
run_instances_params(const run_instances_request& req);

/// One page; `next_token` empty for the first.
param_list describe_instances_params(const describe_instances_request& req,
                                     const std::string& next_token);

/// One page of DescribeSecurityGroups; `next_token` empty for the first.
param_list
describe_security_groups_params(const std::vector<ec2_filter>& filters,
                                const std::string& next_token);

param_list terminate_instances_params(const std::vector<std::string>& ids);

[[nodiscard]] caf::expected<param_list>
create_tags_params(const std::vector<std::string>& resource_ids,
                   const std::vector<ec2_tag>& tags);

[[nodiscard]] caf::expected<param_list>
request_spot_instances_params(const spot_request_spec& spec);

param_list describe_spot_instance_requests_params(
    const describe_spot_requests_request& req, const std::string& next_token);

param_list
cancel_spot_instance_requests_params(const std::vector<std::string>& ids);

} // namespace det::aws
