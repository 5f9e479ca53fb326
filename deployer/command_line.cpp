#include "aws/aws_error.hpp"
#include "conf/duration.hpp"
#include "deployer/options.hpp"
#include "deployer/value_checks.hpp"
#include "util/cli.hpp"

#include <functional>
#include <regex>

// parse_command_line() and usage(): det-deploy's options as a table (name,
// value placeholder, help, the setter that checks and stores a value), given
// to CLI11, which parses and writes the help from it. Checks across options
// (what is required, what needs what) run after parsing.

namespace det::deploy {

namespace {

/// Checks and stores the value of option `flag`.
using setter =
    std::function<caf::error(const std::string& flag, const std::string& v)>;

struct option_spec {
  std::string name;
  /// Empty for a switch (no value; the setter gets "").
  std::string metavar;
  std::string help;
  setter set;
  /// Each occurrence is set in turn; otherwise the last one wins.
  bool repeatable = false;
};

void add_specs(CLI::App& app, std::vector<option_spec> specs) {
  for (auto& s : specs) {
    auto set = [set = s.set, flag = s.name](const std::string& v) {
      if (auto err = set(flag, v))
        throw CLI::ValidationError(aws::error_text(err));
    };
    if (s.metavar.empty()) {
      app.add_flag_callback(
             s.name, [set] { set(""); }, s.help)
          ->disable_flag_override();
    } else if (s.repeatable) {
      app.add_option_function<std::vector<std::string>>(
             s.name,
             [set](const std::vector<std::string>& vs) {
               for (const auto& v : vs)
                 set(v);
             },
             s.help)
          ->type_name(s.metavar)
          ->allow_extra_args(false);
    } else {
      app.add_option_function<std::string>(s.name, set, s.help)
          ->type_name(s.metavar)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
  }
}

// -- the setters of the tables ------------------------------------------------

/// Accepts any value.
caf::error any_value_ok(const std::string&, const std::string&) {
  return caf::none;
}

/// Stores the value, then checks it (the option's error names the flag).
setter store(std::string& to, setter check = any_value_ok) {
  return [&to, check = std::move(check)](const std::string& flag,
                                         const std::string& v) {
    to = v;
    return check(flag, v);
  };
}

/// A switch: sets `to`.
setter store_true(bool& to) {
  return [&to](const std::string&, const std::string&) {
    to = true;
    return caf::error{};
  };
}

setter store_int(int& to, int min) {
  return [&to, min](const std::string& flag, const std::string& v) {
    return to_int(flag, v, min, to);
  };
}

setter store_duration(std::chrono::milliseconds& to) {
  return [&to](const std::string& flag, const std::string& v) {
    return to_duration(flag, v, to);
  };
}

/// A check: the value matches `pattern`, or the error says it is not `what`.
setter must_match(const char* re, const char* what) {
  return [re, what](const std::string& flag, const std::string& v) {
    return matches(flag, v, re, what);
  };
}

setter must_be_one_of(std::vector<std::string> allowed) {
  return [allowed = std::move(allowed)](const std::string& flag,
                                        const std::string& v) {
    return one_of(flag, v, allowed);
  };
}

// Never echoes the password: only what is wrong with it.
caf::error check_db_password(const std::string&, const std::string& value) {
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

const char* ssm_parameter_re = "^/[-a-zA-Z0-9_.:/]+$";
const char* ssm_parameter_is = "an SSM parameter name (/...)";

// -- the tables
// -----------------------------------------------------------------

std::vector<option_spec> connection_specs(connection_options& c) {
  return {
      {"--region", "REGION",
       "AWS region to deploy into (default: the default region for the AWS "
       "user: AWS_REGION, AWS_DEFAULT_REGION, the profile's region)",
       store(c.region, must_match("^[a-z]{2}(-[a-z]+)+-[0-9]+$",
                                  "an AWS region like us-east-1"))},
      {"--endpoint-url", "URL",
       "send every AWS call (CloudFormation, EC2) to URL, e.g. a moto "
       "server or a private cloud (default: AWS_ENDPOINT_URL_<SERVICE>, "
       "AWS_ENDPOINT_URL, then AWS's public endpoints)",
       store(c.endpoint_url,
             must_match("^https?://[^ ]+$", "an http:// or https:// URL"))},
  };
}

std::vector<option_spec> wait_specs(wait_options& w) {
  return {
      {"--timeout", "DURATION",
       "give up waiting for the stack after DURATION (default 1h)",
       store_duration(w.timeout)},
      {"--poll-interval", "DURATION",
       "time between two looks at the stack and its events (default 5s)",
       [&w](const std::string& flag, const std::string& v) {
         auto err = to_duration(flag, v, w.poll_interval);
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
       store(o.cluster_id)},
      {"--keypair", "NAME",
       "EC2 key pair for the master and agent instances (required)",
       store(o.keypair)},
      {"--master-instance-type", "TYPE",
       "instance type of the master (default m5.large)",
       store(o.master_instance_type,
             must_match("^[a-z][a-z0-9-]*\\.[a-z0-9]+$",
                        "an EC2 instance type like m5.large"))},
      {"--cpu-agent-instance-type", "TYPE",
       "instance type of the agents of the CPU pool (default t2.xlarge); "
       "one of: "
           + types,
       store(o.cpu_agent_instance_type,
             must_be_one_of(agent_instance_types()))},
      {"--gpu-agent-instance-type", "TYPE",
       "instance type of the agents of the GPU pool (default p2.8xlarge); "
       "the same choices",
       store(o.gpu_agent_instance_type,
             must_be_one_of(agent_instance_types()))},
      {"--deployment-type", "TYPE",
       "the template: " + join(deployment_types(), ", ") + " (default simple)",
       store(o.deployment_type, must_be_one_of(deployment_types()))},
      {"--inbound-cidr", "CIDR",
       "CIDR range allowed to reach the master's 8080 and SSH (default "
       "0.0.0.0/0)",
       store(o.inbound_cidr, check_cidr)},
      {"--db-password", "PASSWORD",
       "password of the database user postgres (default postgres; an "
       "update without it keeps the current one); never printed",
       [&o](const std::string& flag, const std::string& v) {
         o.db_password = v;
         o.db_password_given = true;
         return check_db_password(flag, v);
       }},
      {"--max-cpu-containers-per-agent", "N",
       "most CPU containers on one agent of the CPU pool (default 100)",
       store_int(o.max_cpu_containers_per_agent, 0)},
      {"--max-idle-agent-period", "DURATION",
       "idle time after which a dynamic agent is terminated (default 10m)",
       [&o](const std::string& flag, const std::string& v) {
         std::chrono::milliseconds d{0};
         if (auto err = to_duration(flag, v, d))
           return err;
         o.max_idle_agent_period = conf::format_duration(d);
         return caf::error{};
       }},
      {"--max-dynamic-agents", "N",
       "most dynamic agent instances of each pool at one time (default 5)",
       store_int(o.max_dynamic_agents, 1)},
      {"--spot", "", "launch the agents as spot instances (default: no)",
       store_true(o.spot)},
      {"--spot-max-price", "USD",
       "highest hourly spot price, e.g. 0.90 (default: the on-demand price); "
       "needs --spot",
       store(o.spot_max_price,
             must_match("^[0-9]+(\\.[0-9]+)?$", "a price in USD like 0.90"))},
      {"--dry-run", "",
       "print the CreateStack request (template and parameters, password "
       "as ****) as JSON and call nothing",
       store_true(o.dry_run)},
      {"--package", "URL",
       "the determined-master .deb the instances install: https://... or "
       "s3://bucket/key (default: the .deb det-deploy was installed with, "
       "staged in the det-deploy-staging-<account>-<region> bucket)",
       store(o.package, must_match("^(https?|s3)://[^\\s\"'`$\\\\]+$",
                                   "an https://, http:// or s3:// location"))},
      {"--package-file", "PATH",
       "stage this .deb instead of the one det-deploy was installed with",
       store(o.package_file)},
      {"--agent-image-id", "AMI",
       "AMI of the agents of both pools (default: each pool's from its SSM "
       "parameter, below)",
       [&o](const std::string& flag, const std::string& v) {
         if (o.cpu_agent_image_id.empty())
           o.cpu_agent_image_id = v;
         if (o.gpu_agent_image_id.empty())
           o.gpu_agent_image_id = v;
         return check_image(flag, v);
       }},
      {"--cpu-agent-image-id", "AMI", "AMI of the CPU pool's agents",
       store(o.cpu_agent_image_id, check_image)},
      {"--gpu-agent-image-id", "AMI",
       "AMI of the GPU pool's agents (with the NVIDIA driver)",
       store(o.gpu_agent_image_id, check_image)},
      {"--cpu-agent-image-ssm-parameter", "NAME",
       "SSM parameter holding cpu-pool's AMI when no AMI is given (default "
       "Debian 12's public one)",
       store(o.cpu_agent_image_parameter,
             must_match(ssm_parameter_re, ssm_parameter_is))},
      {"--gpu-agent-image-ssm-parameter", "NAME",
       "SSM parameter holding gpu-pool's AMI when no AMI is given (default "
       "AWS's public Deep Learning Base AMI with the NVIDIA driver)",
       store(o.gpu_agent_image_parameter,
             must_match(ssm_parameter_re, ssm_parameter_is))},
      {"--master-image-id", "AMI",
       "AMI of the master (default: the latest Debian 12)",
       store(o.master_image_id, check_image)},
      {"--bastion-image-id", "AMI",
       "AMI of the bastion, secure only (default: the latest Debian 12)",
       store(o.bastion_image_id, check_image)},
      {"--cloudwatch-logs", "MODE",
       "disabled, create (make the log group) or existing (default "
       "disabled)",
       store(o.cloudwatch_logs,
             must_be_one_of({"disabled", "create", "existing"}))},
      {"--log-group", "NAME",
       "CloudWatch log group (default /determined/determined/journald)",
       store(o.log_group)},
      {"--param", "KEY=VALUE",
       "any other template parameter (VpcId, SubnetId, DBInstanceClass, "
       "...); repeatable; wins over the options above",
       [&o](const std::string&, const std::string& v) {
         auto eq = v.find('=');
         if (eq == std::string::npos || eq == 0
             || !std::regex_match(v.substr(0, eq),
                                  std::regex("^[A-Za-z0-9]+$")))
           return bad("--param: '" + v.substr(0, eq)
                      + "' is not KEY=VALUE with an alphanumeric KEY");
         o.extra_parameters.push_back({v.substr(0, eq), v.substr(eq + 1)});
         return caf::error{};
       },
       true},
      {"--templates-dir", "DIR",
       "read <type>.yaml from DIR instead of the installed templates",
       store(o.templates_dir)},
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
       store(o.cluster_id)},
      {"--purge-staging", "",
       "also delete the staging bucket of packages when no other cluster "
       "uses it",
       store_true(o.purge_staging)},
  };
  for (auto& s : connection_specs(o.conn))
    specs.push_back(std::move(s));
  for (auto& s : wait_specs(o.wait))
    specs.push_back(std::move(s));
  return specs;
}

std::vector<option_spec> list_specs(list_options& o) {
  std::vector<option_spec> specs = {
      {"--json", "", "one JSON array instead of a table", store_true(o.json)},
  };
  for (auto& s : connection_specs(o.conn))
    specs.push_back(std::move(s));
  return specs;
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
  if (!o.spot_max_price.empty() && !o.spot)
    return bad("--spot-max-price needs --spot");
  if (!o.bastion_image_id.empty() && o.deployment_type != "secure")
    return bad("--bastion-image-id: only the secure deployment type has a "
               "bastion, not "
               + o.deployment_type);
  return caf::none;
}

const char* top_description =
    "Deploys det-master clusters to AWS with CloudFormation.\n"
    "  det-deploy aws <command> --help\n"
    "\n"
    "Commands:\n"
    "  up     create or update a cluster\n"
    "  down   delete a cluster\n"
    "  list   the clusters det-deploy created\n"
    "\n"
    "Exit status: 0 success, 1 failure, 2 bad arguments.";

const char* up_description =
    "Required: --cluster-id ID --keypair NAME.\n"
    "Without --package, the det-master .deb det-deploy was installed with "
    "(or\n--package-file) is uploaded once to the staging bucket "
    "det-deploy-staging-\n<account>-<region> (tagged managed-by: "
    "det-deploy, keyed by its sha256).\n"
    "The agents' AMIs default to the latest in public SSM parameters (Debian "
    "12;\nfor GPUs AWS's Deep Learning Base AMI with the NVIDIA driver); up "
    "prints them.\n\n"
    "Creates the cluster's CloudFormation stack, or updates it when it "
    "exists,\nshows its events while it waits, and prints the master "
    "URL and the stack's\noutputs.";

const char* down_description =
    "Terminates the agents the master launched (instances and spot "
    "requests\ntagged with the cluster's agent tags), deletes the "
    "stack and waits.\nThe checkpoint bucket, the log group, the EFS "
    "file system and a final\ndatabase snapshot are kept, and so is the "
    "staging bucket unless\n--purge-staging (and no other cluster uses it).";

const char* list_description =
    "The clusters det-deploy created in the region (stacks tagged "
    "managed-by:\ndet-deploy).";

const std::vector<std::string> subcommands = {"up", "down", "list"};

// The whole command line, writing into `cmd`; `app` must not outlive it.
void build(CLI::App& app, command& cmd) {
  app.description(top_description);
  auto* aws = app.add_subcommand("aws", "AWS: up, down or list");
  auto* up = aws->add_subcommand("up", "create or update a cluster");
  up->description(up_description);
  add_specs(*up, up_specs(cmd.up));
  auto* down = aws->add_subcommand("down", "delete a cluster");
  down->description(down_description);
  add_specs(*down, down_specs(cmd.down));
  auto* list = aws->add_subcommand("list", "the clusters det-deploy created");
  list->description(list_description);
  add_specs(*list, list_specs(cmd.list));
  cli::configure(app);
}

bool is_help(const std::string& a) {
  return a == "--help" || a == "-h" || a == "help";
}

} // namespace

std::string usage(const std::string& topic) {
  command ignored;
  CLI::App app{"", "det-deploy"};
  build(app, ignored);
  if (topic.empty())
    return app.help();
  return app.get_subcommand("aws")->get_subcommand(topic)->help(
      "det-deploy aws");
}

caf::expected<command>
parse_command_line(const std::vector<std::string>& args) {
  command cmd;
  // The words before the options: a provider and one of its commands.
  if (args.empty() || is_help(args[0]))
    return cmd;
  if (args[0] != "aws")
    return bad("unknown provider '" + args[0] + "'; allowed: aws");
  if (args.size() < 2 || is_help(args[1]))
    return cmd;
  const auto& sub = args[1];
  if (std::find(subcommands.begin(), subcommands.end(), sub)
      == subcommands.end())
    return bad("unknown command 'aws " + sub + "'; allowed: up, down, list");
  CLI::App app{"", "det-deploy"};
  build(app, cmd);
  auto r = cli::parse(app, args);
  if (r.what == cli::outcome::kind::error)
    return bad(r.text);
  if (r.what == cli::outcome::kind::help) {
    cmd.help_topic = sub;
    return cmd;
  }
  if (sub == "up") {
    cmd.kind = command_kind::up;
    if (auto err = check_up(cmd.up))
      return err;
  } else if (sub == "down") {
    cmd.kind = command_kind::down;
    if (auto err = check_cluster_id(cmd.down.cluster_id))
      return err;
  } else {
    cmd.kind = command_kind::list;
  }
  return cmd;
}

} // namespace det::deploy
