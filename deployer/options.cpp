#include "deployer/options.hpp"

#include <algorithm>

namespace det::deploy {

const std::vector<std::string>& agent_instance_types() {
  static const std::vector<std::string> types = {
      "g4dn.xlarge",   "g4dn.2xlarge",  "g4dn.4xlarge", "g4dn.8xlarge",
      "g4dn.16xlarge", "g4dn.12xlarge", "g4dn.metal",   "p2.xlarge",
      "p2.8xlarge",    "p2.16xlarge",   "p3.2xlarge",   "p3.8xlarge",
      "p3.16xlarge",   "p3dn.24xlarge", "t2.medium",    "t2.large",
      "t2.xlarge",     "t2.2xlarge"};
  return types;
}

const std::vector<std::string>& deployment_types() {
  static const std::vector<std::string> types = {"simple", "vpc", "efs", "fsx",
                                                 "secure"};
  return types;
}

std::vector<stack_key_value> template_parameters(const up_options& o) {
  std::vector<stack_key_value> p = {
      {"Keypair", o.keypair},
      {"MasterInstanceType", o.master_instance_type},
      {"CpuAgentInstanceType", o.cpu_agent_instance_type},
      {"GpuAgentInstanceType", o.gpu_agent_instance_type},
      {"InboundCIDR", o.inbound_cidr},
      {"DBPassword", o.db_password},
      {"MaxCPUContainersPerAgent",
       std::to_string(o.max_cpu_containers_per_agent)},
      {"MaxIdleAgentPeriod", o.max_idle_agent_period},
      {"MaxDynamicAgents", std::to_string(o.max_dynamic_agents)},
      {"SpotEnabled", o.spot ? "true" : "false"},
      {"SpotMaxPrice", o.spot_max_price},
      {"DeterminedPackage", o.package},
      {"CloudWatchLogs", o.cloudwatch_logs},
  };
  if (!o.cpu_agent_image_id.empty())
    p.push_back({"CpuAgentImageId", o.cpu_agent_image_id});
  if (!o.gpu_agent_image_id.empty())
    p.push_back({"GpuAgentImageId", o.gpu_agent_image_id});
  if (!o.cpu_agent_image_parameter.empty())
    p.push_back({"CpuAgentImageParameter", o.cpu_agent_image_parameter});
  if (!o.gpu_agent_image_parameter.empty())
    p.push_back({"GpuAgentImageParameter", o.gpu_agent_image_parameter});
  if (!o.log_group.empty())
    p.push_back({"CloudWatchLogGroup", o.log_group});
  if (!o.master_image_id.empty())
    p.push_back({"MasterImageId", o.master_image_id});
  if (!o.bastion_image_id.empty())
    p.push_back({"BastionImageId", o.bastion_image_id});
  for (const auto& extra : o.extra_parameters) {
    auto same = std::find_if(p.begin(), p.end(), [&](const auto& kv) {
      return kv.key == extra.key;
    });
    if (same != p.end())
      same->value = extra.value;
    else
      p.push_back(extra);
  }
  return p;
}

std::vector<stack_key_value> stack_tags(const up_options& o) {
  return {{managed_by_tag, managed_by_value},
          {cluster_id_tag, o.cluster_id},
          {deployment_type_tag, o.deployment_type}};
}

bool is_secret_parameter(const std::string& key) {
  return key == "DBPassword";
}

std::vector<stack_key_value>
redact_parameters(std::vector<stack_key_value> params) {
  for (auto& kv : params)
    if (is_secret_parameter(kv.key))
      kv.value = "****";
  return params;
}

} // namespace det::deploy