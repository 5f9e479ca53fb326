#pragma once

// A security group named the way the older documents let an operator write
// it (`security_group: NAME`) -> the id EC2 launches take. Blocks on the
// client: call it at start-up or on the async_executor, never on an actor
// thread.

#include "aws/ec2_client.hpp"

#include <caf/expected.hpp>

#include <string>

namespace det::aws {

/// The id of the one security group called `name` (in VPC `vpc_id` when
/// not empty). Fails with errc::invalid_argument when no group or more than
/// one has that name (naming the VPCs, so the operator can give the id),
/// or with the EC2 error of the lookup.
[[nodiscard]] caf::expected<std::string>
security_group_id_by_name(ec2_client& ec2, const std::string& name,
                          const std::string& vpc_id = "");

} // namespace det::aws
