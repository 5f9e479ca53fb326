#include "aws/ec2_params.hpp"

#include "aws/crypto.hpp"
#include "messages/errc.hpp"

namespace det::aws {

namespace {

std::string n(size_t i) {
  return std::to_string(i + 1);
}

void add_list(param_list& out, const std::string& prefix,
              const std::vector<std::string>& values) {
  for (size_t i = 0; i < values.size(); ++i)
    out.emplace_back(prefix + "." + n(i), values[i]);
}

void add_filters(param_list& out, const std::vector<ec2_filter>& filters) {
  for (size_t i = 0; i < filters.size(); ++i) {
    auto prefix = "Filter." + n(i);
    out.emplace_back(prefix + ".Name", filters[i].name);
    add_list(out, prefix + ".Value", filters[i].values);
  }
}

void add_tag_spec(param_list& out, size_t index, const std::string& type,
                  const std::vector<ec2_tag>& tags) {
  auto prefix = "TagSpecification." + n(index);
  out.emplace_back(prefix + ".ResourceType", type);
  for (size_t i = 0; i < tags.size(); ++i) {
    out.emplace_back(prefix + ".Tag." + n(i) + ".Key", tags[i].key);
    out.emplace_back(prefix + ".Tag." + n(i) + ".Value", tags[i].value);
  }
}

void add_network_interface(param_list& out, const std::string& prefix,
                           const network_interface_spec& ni) {
  auto p = prefix + "NetworkInterface.1.";
  out.emplace_back(p + "DeviceIndex", "0");
  out.emplace_back(p + "AssociatePublicIpAddress",
                   ni.associate_public_ip ? "true" : "false");
  out.emplace_back(p + "DeleteOnTermination", "true");
  if (!ni.subnet_id.empty())
    out.emplace_back(p + "SubnetId", ni.subnet_id);
  add_list(out, p + "SecurityGroupId", ni.security_group_ids);
}

void add_root_volume(param_list& out, const std::string& prefix,
                     const std::string& device, const std::string& type,
                     int size_gb) {
  auto p = prefix + "BlockDeviceMapping.1.";
  out.emplace_back(p + "DeviceName", device);
  out.emplace_back(p + "Ebs.VolumeSize", std::to_string(size_gb));
  if (!type.empty())
    out.emplace_back(p + "Ebs.VolumeType", type);
  out.emplace_back(p + "Ebs.DeleteOnTermination", "true");
}

caf::error invalid(const std::string& what) {
  return make_error(errc::invalid_argument, what);
}

caf::error check_token(const std::string& token, const char* call) {
  if (token.size() > 64)
    return invalid(std::string(call) + ": client_token is "
                   + std::to_string(token.size())
                   + " characters, EC2 allows at most 64");
  for (unsigned char c : token)
    if (c < 0x20 || c > 0x7e)
      return invalid(std::string(call)
                     + ": client_token must be printable ASCII");
  return {};
}

caf::error check_tags(const std::vector<ec2_tag>& tags, const char* call) {
  for (const auto& t : tags)
    if (t.key.empty() || t.key.rfind("aws:", 0) == 0)
      return invalid(std::string(call) + ": tag key '" + t.key
                     + "' is empty or starts with aws:");
  return {};
}

} // namespace

caf::expected<param_list>
run_instances_params(const run_instances_request& req) {
  if (req.image_id.empty())
    return invalid("RunInstances: image_id is required");
  if (req.instance_type.empty())
    return invalid("RunInstances: instance_type is required");
  if (req.min_count < 1 || req.max_count < req.min_count)
    return invalid("RunInstances: need 1 <= min_count ("
                   + std::to_string(req.min_count) + ") <= max_count ("
                   + std::to_string(req.max_count) + ")");
  if (req.network_interface
      && (!req.subnet_id.empty() || !req.security_group_ids.empty()))
    return invalid("RunInstances: network_interface excludes top-level "
                   "subnet_id and security_group_ids");
  if (auto err = check_token(req.client_token, "RunInstances"))
    return err;
  if (auto err = check_tags(req.instance_tags, "RunInstances"))
    return err;
  if (auto err = check_tags(req.volume_tags, "RunInstances"))
    return err;
  param_list p;
  p.emplace_back("ImageId", req.image_id);
  p.emplace_back("InstanceType", req.instance_type);
  p.emplace_back("MinCount", std::to_string(req.min_count));
  p.emplace_back("MaxCount", std::to_string(req.max_count));
  if (!req.client_token.empty())
    p.emplace_back("ClientToken", req.client_token);
  if (!req.key_name.empty())
    p.emplace_back("KeyName", req.key_name);
  size_t spec = 0;
  if (!req.instance_tags.empty())
    add_tag_spec(p, spec++, "instance", req.instance_tags);
  if (!req.volume_tags.empty())
    add_tag_spec(p, spec++, "volume", req.volume_tags);
  if (!req.iam_instance_profile_arn.empty())
    p.emplace_back("IamInstanceProfile.Arn", req.iam_instance_profile_arn);
  if (req.network_interface) {
    add_network_interface(p, "", *req.network_interface);
  } else {
    add_list(p, "SecurityGroupId", req.security_group_ids);
    if (!req.subnet_id.empty())
      p.emplace_back("SubnetId", req.subnet_id);
  }
  if (req.root_volume_size_gb)
    add_root_volume(p, "", req.root_device_name, req.root_volume_type,
                    *req.root_volume_size_gb);
  if (!req.user_data.empty())
    p.emplace_back("UserData", base64_encode(req.user_data));
  if (req.require_imdsv2) {
    p.emplace_back("MetadataOptions.HttpTokens", "required");
    p.emplace_back("MetadataOptions.HttpEndpoint", "enabled");
  }
  if (req.terminate_on_shutdown)
    p.emplace_back("InstanceInitiatedShutdownBehavior", "terminate");
  if (req.spot) {
    p.emplace_back("InstanceMarketOptions.MarketType", "spot");
    p.emplace_back("InstanceMarketOptions.SpotOptions.SpotInstanceType",
                   "one-time");
    p.emplace_back(
        "InstanceMarketOptions.SpotOptions.InstanceInterruptionBehavior",
        "terminate");
    if (!req.spot_max_price.empty())
      p.emplace_back("InstanceMarketOptions.SpotOptions.MaxPrice",
                     req.spot_max_price);
  }
  return p;
}

param_list describe_instances_params(const describe_instances_request& req,
                                     const std::string& next_token) {
  param_list p;
  add_list(p, "InstanceId", req.instance_ids);
  add_filters(p, req.filters);
  if (req.instance_ids.empty() && req.page_size > 0)
    p.emplace_back("MaxResults", std::to_string(req.page_size));
  if (!next_token.empty())
    p.emplace_back("NextToken", next_token);
  return p;
}

param_list
describe_security_groups_params(const std::vector<ec2_filter>& filters,
                                const std::string& next_token) {
  param_list p;
  add_filters(p, filters);
  if (!next_token.empty())
    p.emplace_back("NextToken", next_token);
  return p;
}

param_list terminate_instances_params(const std::vector<std::string>& ids) {
  param_list p;
  add_list(p, "InstanceId", ids);
  return p;
}

caf::expected<param_list>
create_tags_params(const std::vector<std::string>& resource_ids,
                   const std::vector<ec2_tag>& tags) {
  if (resource_ids.empty() || tags.empty())
    return invalid("CreateTags: needs at least one resource id and one tag");
  if (auto err = check_tags(tags, "CreateTags"))
    return err;
  param_list p;
  add_list(p, "ResourceId", resource_ids);
  for (size_t i = 0; i < tags.size(); ++i) {
    p.emplace_back("Tag." + n(i) + ".Key", tags[i].key);
    p.emplace_back("Tag." + n(i) + ".Value", tags[i].value);
  }
  return p;
}

caf::expected<param_list>
request_spot_instances_params(const spot_request_spec& spec) {
  if (spec.image_id.empty() || spec.instance_type.empty())
    return invalid("RequestSpotInstances: image_id and instance_type are "
                   "required");
  if (spec.instance_count < 1)
    return invalid("RequestSpotInstances: instance_count must be >= 1");
  if (spec.network_interface
      && (!spec.subnet_id.empty() || !spec.security_group_ids.empty()))
    return invalid("RequestSpotInstances: network_interface excludes "
                   "top-level subnet_id and security_group_ids");
  if (auto err = check_token(spec.client_token, "RequestSpotInstances"))
    return err;
  if (auto err = check_tags(spec.request_tags, "RequestSpotInstances"))
    return err;
  param_list p;
  p.emplace_back("InstanceCount", std::to_string(spec.instance_count));
  p.emplace_back("Type", "one-time");
  if (!spec.spot_price.empty())
    p.emplace_back("SpotPrice", spec.spot_price);
  if (!spec.client_token.empty())
    p.emplace_back("ClientToken", spec.client_token);
  if (!spec.request_tags.empty())
    add_tag_spec(p, 0, "spot-instances-request", spec.request_tags);
  const std::string ls = "LaunchSpecification.";
  p.emplace_back(ls + "ImageId", spec.image_id);
  p.emplace_back(ls + "InstanceType", spec.instance_type);
  if (!spec.key_name.empty())
    p.emplace_back(ls + "KeyName", spec.key_name);
  if (!spec.iam_instance_profile_arn.empty())
    p.emplace_back(ls + "IamInstanceProfile.Arn",
                   spec.iam_instance_profile_arn);
  if (spec.network_interface) {
    add_network_interface(p, ls, *spec.network_interface);
  } else {
    add_list(p, ls + "SecurityGroupId", spec.security_group_ids);
    if (!spec.subnet_id.empty())
      p.emplace_back(ls + "SubnetId", spec.subnet_id);
  }
  if (spec.root_volume_size_gb)
    add_root_volume(p, ls, spec.root_device_name, spec.root_volume_type,
                    *spec.root_volume_size_gb);
  if (!spec.user_data.empty())
    p.emplace_back(ls + "UserData", base64_encode(spec.user_data));
  return p;
}

param_list describe_spot_instance_requests_params(
    const describe_spot_requests_request& req, const std::string& next_token) {
  param_list p;
  add_list(p, "SpotInstanceRequestId", req.request_ids);
  add_filters(p, req.filters);
  if (req.request_ids.empty() && req.page_size > 0)
    p.emplace_back("MaxResults", std::to_string(req.page_size));
  if (!next_token.empty())
    p.emplace_back("NextToken", next_token);
  return p;
}

param_list
cancel_spot_instance_requests_params(const std::vector<std::string>& ids) {
  param_list p;
  add_list(p, "SpotInstanceRequestId", ids);
  return p;
}

} // namespace det::aws
