#pragma once

// EC2 response documents -> ec2_types, by element name (moto and AWS order
// elements differently; unknown elements are ignored). Pure.

#include "aws/ec2_types.hpp"
#include "aws/xml.hpp"

#include <string>
#include <vector>

namespace det::aws {

/// One instancesSet item.
instance parse_instance(const xml_element& item);

/// RunInstancesResponse.
std::vector<instance> parse_run_instances(const xml_element& root);

template <class T> struct ec2_page {
  std::vector<T> items;
  /// Empty on the last page.
  std::string next_token;
};

/// DescribeInstancesResponse: the instances of every reservation.
ec2_page<instance> parse_describe_instances(const xml_element& root);

/// TerminateInstancesResponse.
std::vector<instance_state_change>
parse_terminate_instances(const xml_element& root);

/// RequestSpotInstancesResponse and DescribeSpotInstanceRequestsResponse.
ec2_page<spot_instance_request>
parse_spot_instance_requests(const xml_element& root);

/// DescribeSecurityGroupsResponse.
ec2_page<security_group>
parse_describe_security_groups(const xml_element& root);

/// CancelSpotInstanceRequestsResponse.
std::vector<spot_cancel_result>
parse_cancel_spot_instance_requests(const xml_element& root);

/// The instance ids named in an InvalidInstanceID.* error message
/// ("The instance IDs 'i-1, i-2' do not exist"); empty if none can be read.
std::vector<std::string> instance_ids_in_message(const std::string& message);

} // namespace det::aws
