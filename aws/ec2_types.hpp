#pragma once

// Plain data of the EC2 calls the provisioner makes: what it asks for and
// what it gets back. Field names follow the EC2 API in snake_case; strings
// are empty where EC2 sent nothing.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace det::aws {

struct ec2_tag {
  std::string key;
  std::string value;

  friend bool operator==(const ec2_tag& a, const ec2_tag& b) {
    return a.key == b.key && a.value == b.value;
  }
};

/// NetworkInterface.1 of a launch: the device-0 interface.
struct network_interface_spec {
  bool associate_public_ip = false;
  std::vector<std::string> security_group_ids;
  std::string subnet_id;
};

/// RunInstances. Either `network_interface` or the top-level
/// `security_group_ids` / `subnet_id`, not both (EC2 rejects the mix).
struct run_instances_request {
  std::string image_id;
  std::string instance_type;
  int min_count = 1;
  int max_count = 1;
  /// Idempotency token, at most 64 ASCII characters; empty sends none.
  std::string client_token;
  std::vector<ec2_tag> instance_tags;
  std::vector<ec2_tag> volume_tags;
  std::string iam_instance_profile_arn;
  std::optional<network_interface_spec> network_interface;
  std::vector<std::string> security_group_ids;
  std::string subnet_id;
  std::string key_name;
  /// Root EBS volume size in GiB; unset keeps the AMI's.
  std::optional<int> root_volume_size_gb;
  std::string root_device_name = "/dev/sda1";
  std::string root_volume_type = "gp3";
  /// Raw user data (a script); sent base64-encoded.
  std::string user_data;
  /// MetadataOptions.HttpTokens=required (IMDSv2 only).
  bool require_imdsv2 = true;
  /// InstanceInitiatedShutdownBehavior=terminate: a shutdown from inside
  /// the instance terminates it (det-agent's idle self-stop).
  bool terminate_on_shutdown = false;
  /// Launch as one-time spot instances (InstanceMarketOptions).
  bool spot = false;
  /// Spot price cap in USD per hour, e.g. "0.50"; empty caps at on-demand.
  std::string spot_max_price;
};

struct instance {
  std::string instance_id;
  std::string image_id;
  std::string instance_type;
  /// pending, running, shutting-down, terminated, stopping, stopped.
  std::string state;
  int state_code = -1;
  std::string state_reason_code;
  std::string private_ip;
  std::string public_ip;
  std::string private_dns;
  std::string public_dns;
  std::string launch_time;
  std::string availability_zone;
  std::string subnet_id;
  std::string vpc_id;
  std::string key_name;
  std::string client_token;
  /// "spot" for spot instances, empty for on-demand.
  std::string lifecycle;
  std::string spot_instance_request_id;
  std::vector<ec2_tag> tags;

  /// The value of tag `key`, or nullopt.
  std::optional<std::string> tag(const std::string& key) const;
};

/// A Filter.N: `name` matches any of `values` ("tag:det-pool", "running").
struct ec2_filter {
  std::string name;
  std::vector<std::string> values;
};

/// Filter on tag `key` having `value`.
ec2_filter tag_filter(const std::string& key, const std::string& value);

/// Filter on instance-state-name being any of `states`.
ec2_filter state_filter(std::vector<std::string> states);

/// DescribeInstances. With `instance_ids`, EC2 forbids MaxResults, so
/// `page_size` only applies to filter-only queries; 0 sends none (EC2
/// returns everything, moto pages by 100 reservations).
struct describe_instances_request {
  std::vector<std::string> instance_ids;
  std::vector<ec2_filter> filters;
  int page_size = 0;
};

struct instance_state_change {
  std::string instance_id;
  std::string previous_state;
  std::string current_state;
};

/// One item of DescribeSecurityGroups.
struct security_group {
  std::string group_id;
  std::string group_name;
  std::string vpc_id;
};

/// TerminateInstances over any number of ids.
struct terminate_result {
  std::vector<instance_state_change> changes;
  /// Ids EC2 rejected as unknown or malformed; the others were terminated.
  std::vector<std::string> not_found;
};

/// RequestSpotInstances (one-time requests).
struct spot_request_spec {
  int instance_count = 1;
  /// USD per hour; empty caps at the on-demand price.
  std::string spot_price;
  std::string client_token;
  /// Tags of the request itself (ResourceType=spot-instances-request).
  std::vector<ec2_tag> request_tags;
  std::string image_id;
  std::string instance_type;
  std::string key_name;
  std::string iam_instance_profile_arn;
  std::optional<network_interface_spec> network_interface;
  std::vector<std::string> security_group_ids;
  std::string subnet_id;
  std::optional<int> root_volume_size_gb;
  std::string root_device_name = "/dev/sda1";
  std::string root_volume_type = "gp3";
  std::string user_data;
};

struct spot_instance_request {
  std::string request_id;
  /// open, active, closed, cancelled, failed.
  std::string state;
  std::string status_code;
  std::string status_message;
  std::string instance_id;
  std::string spot_price;
  std::string type;
  std::string create_time;
  std::vector<ec2_tag> tags;
};

struct describe_spot_requests_request {
  std::vector<std::string> request_ids;
  std::vector<ec2_filter> filters;
  int page_size = 0;
};

struct spot_cancel_result {
  std::string request_id;
  std::string state;
};

} // namespace det::aws
