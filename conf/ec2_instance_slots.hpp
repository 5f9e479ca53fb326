#pragma once

// GPUs per EC2 instance type: how many slots a dynamic agent of that type
// brings, for validation (an unknown type needs instance_slots) and for
// the provisioner's capacity and scale arithmetic. The table is the set of
// types upstream supports (g4dn, g5, p2, p3, p3dn, p4d with GPUs; t2, t3,
// c4-c5n, m4-m6i without).

#include <optional>
#include <string_view>

namespace det::conf {

/// GPUs of `instance_type`, 0 for a known CPU-only type, nullopt when the
/// type is not in the table.
std::optional<int> ec2_gpu_count(std::string_view instance_type);

} // namespace det::conf
