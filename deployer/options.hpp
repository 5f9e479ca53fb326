#pragma once

// det-deploy's command line: `det-deploy aws up|down|list [options]`, with
// every argument and default of upstream det-deploy aws up plus ours
// (--package, the AMIs, CloudWatch, --param, --endpoint-url, the wait bounds),
// and the mapping of `up`'s options to the CloudFormation template's parameters
// (deploy/aws/*.yaml). Pure: no I/O, no environment; main.cpp adds those.
//
// parse_command_line() fails with errc::invalid_argument whose message is
// the line to print before "try --help" (exit status 2): it names the
// argument and, for a value outside a fixed set, lists the allowed ones.

#include "aws/cloudformation_types.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace det::deploy {

using aws::stack_key_value;

/// Where the AWS calls go; both empty = the default region and endpoints.
struct connection_options {
  std::string region;
  /// One endpoint for every service (CloudFormation and EC2), e.g. a moto
  /// server or a private cloud.
  std::string endpoint_url;
};

struct wait_options {
  std::chrono::milliseconds timeout{std::chrono::hours(1)};
  std::chrono::milliseconds poll_interval{std::chrono::seconds(5)};
};

struct up_options {
  // ---- upstream's arguments ----
  std::string cluster_id;
  std::string keypair;
  std::string master_instance_type = "m5.large";
  std::string cpu_agent_instance_type = "t2.xlarge";
  std::string gpu_agent_instance_type = "p2.8xlarge";
  std::string deployment_type = "simple";
  std::string inbound_cidr = "0.0.0.0/0";
  std::string db_password = "postgres";
  /// An update without --db-password keeps the stack's password.
  bool db_password_given = false;
  int max_cpu_containers_per_agent = 100;
  /// Canonical Go duration ("10m").
  std::string max_idle_agent_period = "10m";
  int max_dynamic_agents = 5;
  bool spot = false;
  /// Empty: the on-demand price.
  std::string spot_max_price;
  bool dry_run = false;
  // ---- ours ----
  /// The determined-master .deb: https://... or s3://bucket/key. Empty:
  /// `up` stages package_file (else the .deb det-deploy was installed
  /// with) in the staging bucket (deployer/staging.hpp).
  std::string package;
  std::string package_file;
  /// Empty: read from the SSM parameter below when `up` runs (the template
  /// has det-master read it when a dry run's document is used as is).
  std::string cpu_agent_image_id;
  std::string gpu_agent_image_id;
  /// SSM parameters holding the agents' AMIs; empty = the template's
  /// defaults (cpu_image_parameter_default, gpu_image_parameter_default).
  std::string cpu_agent_image_parameter;
  std::string gpu_agent_image_parameter;
  /// Empty: the template's default (Debian 12 from SSM).
  std::string master_image_id;
  std::string bastion_image_id;
  /// disabled, create or existing.
  std::string cloudwatch_logs = "disabled";
  /// Empty: the template's default log group.
  std::string log_group;
  /// --param KEY=VALUE: any other template parameter, sent as given.
  std::vector<stack_key_value> extra_parameters;
  /// Empty: the installed templates, then the source tree's.
  std::string templates_dir;
  connection_options conn;
  wait_options wait;
};

struct down_options {
  std::string cluster_id;
  /// Also delete the staging bucket when no other cluster uses it.
  bool purge_staging = false;
  connection_options conn;
  wait_options wait;
};

struct list_options {
  connection_options conn;
  bool json = false;
};

enum class command_kind { help, up, down, list };

struct command {
  command_kind kind = command_kind::help;
  /// What --help printed for (empty for the top level): "up", "down", ...
  std::string help_topic;
  up_options up;
  down_options down;
  list_options list;
};

/// `args` without the program name. --help anywhere gives kind help with
/// the topic of the subcommand it follows.
[[nodiscard]] caf::expected<command>
parse_command_line(const std::vector<std::string>& args);

/// The --help text of a topic ("" = top level, "up", "down", "list").
std::string usage(const std::string& topic);

/// Seed 002's allowed agent instance types, in its order.
const std::vector<std::string>& agent_instance_types();

/// The public SSM parameters the agents' AMIs come from by default (the
/// templates' defaults): Debian 12 for both pools, as the package is built
/// for it (its library dependencies are Debian 12's); gpu-pool agents
/// install the NVIDIA driver from Debian's non-free archive on first boot.
inline constexpr const char* cpu_image_parameter_default =
    "/aws/service/debian/release/12/latest/amd64";
inline constexpr const char* gpu_image_parameter_default =
    cpu_image_parameter_default;

/// simple, vpc, efs, fsx, secure.
const std::vector<std::string>& deployment_types();

/// Template parameters of `opts`: every upstream argument always (so a
/// dry run shows them), ours when set, then --param entries (which win).
std::vector<stack_key_value> template_parameters(const up_options& opts);

/// The tags det-deploy puts on its stacks (CloudFormation copies them to
/// every resource that takes tags); `list` finds its clusters by them.
std::vector<stack_key_value> stack_tags(const up_options& opts);

inline constexpr const char* managed_by_tag = "managed-by";
inline constexpr const char* managed_by_value = "det-deploy";
inline constexpr const char* cluster_id_tag = "det-cluster-id";
inline constexpr const char* deployment_type_tag = "det-deployment-type";

/// Parameters whose values are never printed.
bool is_secret_parameter(const std::string& key);

/// `params` with secret values replaced by "****".
std::vector<stack_key_value>
redact_parameters(std::vector<stack_key_value> params);

} // namespace det::deploy
