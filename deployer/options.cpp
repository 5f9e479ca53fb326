#include "deployer/options.hpp"

#include "conf/duration.hpp"
#include "deployer/arg_parser.hpp"

#include <algorithm>
#include <regex>

namespace det::deploy {

namespace {

// Never echoes the password: only what is wrong with it.
caf::error check_db_password(const std::string& value) {
  if (value.size() < 8 || value.size() > 128)
    return bad("--db-password: must be 8-128 characters long, not "
               + std::to_string(value.size()));
  if (value.find_first_of("/\"@\\' ") != std::string::npos)
    return bad("--db-password: must not contain / \" @ \\ ' or a space "
               "(RDS refuses them)");
  return caf::none;
}

caf::error check_image(const std::string& flag, const std::string& value) {
  return matches(flag, value, "^ami-[0-9a-zA-Z]+$", "an AMI id (ami-...)");
}

std::vector<option_spec> connection_specs(connection_options& c) {
  return {
      {"--region", "REGION",
       "AWS region to deploy into (default: the default region for the AWS "
       "user: AWS_REGION, AWS_DEFAULT_REGION, the profile's region)",
       [&c](const std::string& v) {
         c.region = v;
         return matches("--region", v, "^[a-z]{2}(-[a-z]+)+-[0-9]+$",
                        "an AWS region like us-east-1");
       }},
      {"--endpoint-url", "URL",
       "send every AWS call (CloudFormation, EC2) to URL, e.g. a moto "
       "server or a private cloud (default: AWS_ENDPOINT_URL_<SERVICE>, "
       "AWS_ENDPOINT_URL, then AWS's public endpoints)",
       [&c](const std::string& v) {
         c.endpoint_url = v;
         return matches("--endpoint-url", v, "^https?://[^ ]+$",
                        "an http:// or https:// URL");
       }},
  };
}

std::vector<option_spec> wait_specs(wait_options& w) {
  return {
      {"--timeout", "DURATION",
       "give up waiting for the stack after DURATION (default 1h)",
       [&w](const std::string& v) {
         return to_duration("--timeout", v, w.timeout);
       }},
      {"--poll-interval", "DURATION",
       "time between two looks at the stack and its events (default 5s)",
       [&w](const std::string& v) {
         auto err = to_duration("--poll-interval", v, w.poll_interval);
         if (!err && w.poll_interval.count() <= 0)
           return bad("--poll-interval: must be more than 0");
         return err;
       }},
  };
}

std::vector<option_spec> up_specs(up_options& o) {
  auto types = join(agent_instance_types());
  std::vector<option_spec> specs = {
      {"--cluster-id", "ID",
       "unique id of the cluster; the CloudFormation stack name (required)",
       [&o](const std::string& v) {
         o.cluster_id = v;
         return caf::error{};
       }},
      {"--keypair", "NAME",
       "EC2 key pair for the master and agent instances (required)",
       [&o](const std::string& v) {
         o.keypair = v;
         return caf::error{};
       }},
      {"--master-instance-type", "TYPE",
       "instance type of the master (default m5.large)",
       [&o](const std::string& v) {
         o.master_instance_type = v;
         return matches("--master-instance-type", v,
                        "^[a-z][a-z0-9-]*\\.[a-z0-9]+$",
                        "an EC2 instance type like m5.large");
       }},
      {"--cpu-agent-instance-type", "TYPE",
       "instance type of the agents of the CPU pool (default t2.xlarge); "
       "one of: "
           + types,
       [&o](const std::string& v) {
         o.cpu_agent_instance_type = v;
         return one_of("--cpu-agent-instance-type", v, agent_instance_types());
       }},
      {"--gpu-agent-instance-type", "TYPE",
       "instance type of the agents of the GPU pool (default p2.8xlarge); "
       "the same choices",
       [&o](const std::string& v) {
         o.gpu_agent_instance_type = v;
         return one_of("--gpu-agent-instance-type", v, agent_instance_types());
       }},
      {"--deployment-type", "TYPE",
       "the template: " + join(deployment_types(), ", ") + " (default simple)",
       [&o](const std::string& v) {
         o.deployment_type = v;
         return one_of("--deployment-type", v, deployment_types());
       }},
      {"--inbound-cidr", "CIDR",
       "CIDR range allowed to reach the master's 8080 and SSH (default "
       "0.0.0.0/0)",
       [&o](const std::string& v) {
         o.inbound_cidr = v;
         return check_cidr("--inbound-cidr", v);
       }},
      {"--db-password", "PASSWORD",
       "password of the database user postgres (default postgres; an "
       "update without it keeps the current one); never printed",
       [&o](const std::string& v) {
         o.db_password = v;
         o.db_password_given = true;
         return check_db_password(v);
       }},
      {"--max-cpu-containers-per-agent", "N",
       "most CPU containers on one agent of the CPU pool (default 100)",
       [&o](const std::string& v) {
         return to_int("--max-cpu-containers-per-agent", v, 0,
                       o.max_cpu_containers_per_agent);
       }},
      {"--max-idle-agent-period", "DURATION",
       "idle time after which a dynamic agent is terminated (default 10m)",
       [&o](const std::string& v) {
         std::chrono::milliseconds d{0};
         if (auto err = to_duration("--max-idle-agent-period", v, d))
           return err;
         o.max_idle_agent_period = conf::format_duration(d);
         return caf::error{};
       }},
      {"--max-dynamic-agents", "N",
       "most dynamic agent instances of each pool at one time (default 5)",
       [&o](const std::string& v) {
         return to_int("--max-dynamic-agents", v, 1, o.max_dynamic_agents);
       }},
      {"--spot", "", "launch the agents as spot instances (default: no)",
       [&o](const std::string&) {
         o.spot = true;
         return caf::error{};
       }},
      {"--spot-max-price", "USD",
       "highest hourly spot price, e.g. 0.90 (default: the on-demand price); "
       "needs --spot",
       [&o](const std::string& v) {
         o.spot_max_price = v;
         return matches("--spot-max-price", v, "^[0-9]+(\\.[0-9]+)?$",
                        "a price in USD like 0.90");
       }},
      {"--dry-run", "",
       "print the CreateStack request (template and parameters, password "
       "as ****) as JSON and call nothing",
       [&o](const std::string&) {
         o.dry_run = true;
         return caf::error{};
       }},
      {"--package", "URL",
       "the determined-master .deb the instances install: https://... or "
       "s3://bucket/key (required)",
       [&o](const std::string& v) {
         o.package = v;
         return matches("--package", v, "^(https?|s3)://[^\\s\"'`$\\\\]+$",
                        "an https://, http:// or s3:// location");
       }},
      {"--agent-image-id", "AMI",
       "AMI of the agents of both pools (required unless both of the next "
       "two are given)",
       [&o](const std::string& v) {
         if (o.cpu_agent_image_id.empty())
           o.cpu_agent_image_id = v;
         if (o.gpu_agent_image_id.empty())
           o.gpu_agent_image_id = v;
         return check_image("--agent-image-id", v);
       }},
      {"--cpu-agent-image-id", "AMI", "AMI of the CPU pool's agents",
       [&o](const std::string& v) {
         o.cpu_agent_image_id = v;
         return check_image("--cpu-agent-image-id", v);
       }},
      {"--gpu-agent-image-id", "AMI",
       "AMI of the GPU pool's agents (with the NVIDIA driver)",
       [&o](const std::string& v) {
         o.gpu_agent_image_id = v;
         return check_image("--gpu-agent-image-id", v);
       }},
      {"--master-image-id", "AMI",
       "AMI of the master (default: the latest Debian 12)",
       [&o](const std::string& v) {
         o.master_image_id = v;
         return check_image("--master-image-id", v);
       }},
      {"--bastion-image-id", "AMI",
       "AMI of the bastion, secure only (default: the latest Debian 12)",
       [&o](const std::string& v) {
         o.bastion_image_id = v;
         return check_image("--bastion-image-id", v);
       }},
      {"--cloudwatch-logs", "MODE",
       "disabled, create (make the log group) or existing (default "
       "disabled)",
       [&o](const std::string& v) {
         o.cloudwatch_logs = v;
         return one_of("--cloudwatch-logs", v,
                       {"disabled", "create", "existing"});
       }},
      {"--log-group", "NAME",
       "CloudWatch log group (default /determined/determined/journald)",
       [&o](const std::string& v) {
         o.log_group = v;
         return caf::error{};
       }},
      {"--param", "KEY=VALUE",
       "any other template parameter (VpcId, SubnetId, DBInstanceClass, "
       "...); repeatable; wins over the options above",
       [&o](const std::string& v) {
         auto eq = v.find('=');
         if (eq == std::string::npos || eq == 0
             || !std::regex_match(v.substr(0, eq),
                                  std::regex("^[A-Za-z0-9]+$")))
           return bad("--param: '" + v.substr(0, eq)
                      + "' is not KEY=VALUE with an alphanumeric KEY");
         o.extra_parameters.push_back({v.substr(0, eq), v.substr(eq + 1)});
         return caf::error{};
       }},
      {"--templates-dir", "DIR",
       "read <type>.yaml from DIR instead of the installed templates",
       [&o](const std::string& v) {
         o.templates_dir = v;
         return caf::error{};
       }},
  };
  for (auto& s : connection_specs(o.conn))
    specs.push_back(std::move(s));
  for (auto& s : wait_specs(o.wait))
    specs.push_back(std::move(s));
  return specs;
}

std::vector<option_spec> down_specs(down_options& o) {
  std::vector<option_spec> specs = {
      {"--cluster-id", "ID", "the cluster (stack) to delete (required)",
       [&o](const std::string& v) {
         o.cluster_id = v;
         return caf::error{};
       }},
  };
  for (auto& s : connection_specs(o.conn))
    specs.push_back(std::move(s));
  for (auto& s : wait_specs(o.wait))
    specs.push_back(std::move(s));
  return specs;
}

std::vector<option_spec> list_specs(list_options& o) {
  std::vector<option_spec> specs = {
      {"--json", "", "one JSON array instead of a table",
       [&o](const std::string&) {
         o.json = true;
         return caf::error{};
       }},
  };
  for (auto& s : connection_specs(o.conn))
    specs.push_back(std::move(s));
  return specs;
}

const char* synopsis(const std::string& topic) {
  if (topic == "up")
    return "usage: det-deploy aws up --cluster-id ID --keypair NAME "
           "--package URL --agent-image-id AMI [options]\n\n"
           "Creates the cluster's CloudFormation stack, or updates it when it "
           "exists,\nshows its events while it waits, and prints the master "
           "URL and the stack's\noutputs.\n";
  if (topic == "down")
    return "usage: det-deploy aws down --cluster-id ID [options]\n\n"
           "Terminates the agents the master launched (instances and spot "
           "requests\ntagged with the cluster's agent tags), deletes the "
           "stack and waits.\nThe checkpoint bucket, the log group, the EFS "
           "file system and a final\ndatabase snapshot are kept.\n";
  if (topic == "list")
    return "usage: det-deploy aws list [options]\n\n"
           "The clusters det-deploy created in the region (stacks tagged "
           "managed-by:\ndet-deploy).\n";
  return "usage: det-deploy aws up|down|list [options]\n"
         "       det-deploy aws <command> --help\n\n"
         "Deploys det-master clusters to AWS with CloudFormation.\n"
         "  up     create or update a cluster\n"
         "  down   delete a cluster\n"
         "  list   the clusters det-deploy created\n\n"
         "Exit status: 0 success, 1 failure, 2 bad arguments.\n";
}

caf::error missing(const std::string& what) {
  return bad("missing required argument " + what);
}

caf::error check_cluster_id(const std::string& id) {
  if (id.empty())
    return missing("--cluster-id");
  if (id.size() > 64
      || !std::regex_match(id, std::regex("^[a-zA-Z][-a-zA-Z0-9]*$")))
    return bad("--cluster-id: '" + id
               + "' must start with a letter and "
                 "hold only letters, digits and '-' (at most 64 characters; "
                 "it names the stack and its resources)");
  return caf::none;
}

caf::error check_up(const up_options& o) {
  if (auto err = check_cluster_id(o.cluster_id))
    return err;
  if (o.keypair.empty())
    return missing("--keypair");
  if (o.package.empty())
    return missing("--package (the determined-master .deb: https://... or "
                   "s3://bucket/key)");
  if (o.cpu_agent_image_id.empty() && o.gpu_agent_image_id.empty())
    return missing("--agent-image-id (or --cpu-agent-image-id and "
                   "--gpu-agent-image-id)");
  if (o.cpu_agent_image_id.empty())
    return missing("--cpu-agent-image-id (or --agent-image-id)");
  if (o.gpu_agent_image_id.empty())
    return missing("--gpu-agent-image-id (or --agent-image-id)");
  if (!o.spot_max_price.empty() && !o.spot)
    return bad("--spot-max-price needs --spot");
  if (!o.bastion_image_id.empty() && o.deployment_type != "secure")
    return bad("--bastion-image-id: only the secure deployment type has a "
               "bastion, not "
               + o.deployment_type);
  return caf::none;
}

} // namespace

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

std::string usage(const std::string& topic) {
  std::string text = synopsis(topic);
  if (topic == "up") {
    up_options o;
    text += describe_options(up_specs(o));
  } else if (topic == "down") {
    down_options o;
    text += describe_options(down_specs(o));
  } else if (topic == "list") {
    list_options o;
    text += describe_options(list_specs(o));
  }
  return text;
}

caf::expected<command>
parse_command_line(const std::vector<std::string>& args) {
  command cmd;
  auto is_help = [](const std::string& a) {
    return a == "--help" || a == "-h" || a == "help";
  };
  if (args.empty() || is_help(args[0]))
    return cmd;
  if (args[0] != "aws")
    return bad("unknown provider '" + args[0] + "'; allowed: aws");
  if (args.size() < 2 || is_help(args[1]))
    return cmd;
  const auto& sub = args[1];
  if (sub != "up" && sub != "down" && sub != "list")
    return bad("unknown command 'aws " + sub + "'; allowed: up, down, list");
  for (size_t i = 2; i < args.size(); ++i)
    if (args[i] == "--help" || args[i] == "-h") {
      cmd.help_topic = sub;
      return cmd;
    }
  if (sub == "up") {
    cmd.kind = command_kind::up;
    if (auto err = parse_options(args, 2, up_specs(cmd.up)))
      return err;
    if (auto err = check_up(cmd.up))
      return err;
  } else if (sub == "down") {
    cmd.kind = command_kind::down;
    if (auto err = parse_options(args, 2, down_specs(cmd.down)))
      return err;
    if (auto err = check_cluster_id(cmd.down.cluster_id))
      return err;
  } else {
    cmd.kind = command_kind::list;
    if (auto err = parse_options(args, 2, list_specs(cmd.list)))
      return err;
  }
  return cmd;
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
      {"CpuAgentImageId", o.cpu_agent_image_id},
      {"GpuAgentImageId", o.gpu_agent_image_id},
      {"CloudWatchLogs", o.cloudwatch_logs},
  };
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