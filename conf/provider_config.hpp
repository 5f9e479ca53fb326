#pragma once

// The provider block of a resource pool: which machines the pool's
// provisioner launches and terminates, and when. Field names and defaults
// follow Determined's documentation and upstream's provconfig; the block may be
// written `provider:` (upstream, inside resource_pools) or `provisioner:` (the
// seeds), and its kind `type: aws` (upstream) or `provider: aws` (seeds).
// `local` is det-master's own provider: an "instance" is a det-agent
// process on this machine.

#include "conf/master_url.hpp"
#include "conf/reader.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace det::conf {

/// unreachable_idle_agent_period's default: a master restart that takes
/// less than the agent's 60 s grace stops nothing; an outage longer than
/// that leaks at most this long per instance whose last job ended in it
/// (docs/det-sim.md has the figures).
inline constexpr std::chrono::milliseconds
    default_unreachable_idle_agent_period{std::chrono::seconds{60}};

enum class provider_type {
  none, ///< static agents: no provisioner
  aws,
  local,
};

const char* to_string(provider_type x);

struct network_interface_config {
  bool public_ip = true;
  std::string subnet_id;         ///< "" = the default subnet
  std::string security_group_id; ///< "" = the default security group
};

struct ec2_tag {
  std::string key;
  std::string value;
};

struct aws_provider_config {
  std::string region; ///< "" = resolve at start-up (IMDS, AWS_DEFAULT_REGION)
  std::string endpoint_url; ///< "" = AWS; e.g. http://127.0.0.1:5000 for moto
  /// Required: an AMI id, or "ssm:NAME" for the AMI id the SSM parameter
  /// NAME holds (read once when the master starts the pool's provisioner).
  std::string image_id;
  std::string instance_type = "g4dn.metal";
  std::optional<int64_t> instance_slots; ///< overrides the built-in table
  /// Types to fall back to when instance_type has no capacity; each brings
  /// the same number of slots as instance_type.
  std::vector<std::string> alternative_instance_types;
  std::string instance_name = "determined-ai-agent";
  int64_t root_volume_size = 200; ///< GB
  std::string ssh_key_name;       ///< required
  network_interface_config network_interface;
  /// `security_group: NAME` of the older documents: the provisioner looks
  /// the group up by name at start-up (an `sg-` id given there goes into
  /// network_interface.security_group_id instead). "" = none.
  std::string security_group_name;
  std::string iam_instance_profile_arn;
  std::string tag_key = "managed_by";
  /// Default "determined-ai-<cluster_id>", or "determined-ai-determined"
  /// without a cluster_id. Must be unique per installation.
  std::string tag_value;
  bool spot = false;
  std::optional<std::string> spot_max_price; ///< unset = the on-demand price
  std::vector<ec2_tag> custom_tags;
  bool cpu_slots_allowed = false;
  std::string log_group;
  std::string log_stream;
};

struct local_provider_config {
  int64_t slots_per_instance = 1;
  /// The det-agent to start; a name without '/' is looked up beside
  /// det-master's own binary, then on PATH (the master's job).
  std::string agent_binary = "det-agent";
  std::string work_dir = "/tmp/det-local-agents";
  std::vector<std::string> agent_args;
};

struct provider_config {
  provider_type type = provider_type::none;
  master_address master_url;
  std::string master_cert_name;
  std::string startup_script;           ///< secret
  std::string container_startup_script; ///< secret
  std::string agent_docker_image;       ///< "" = the agent the AMI starts
  std::string agent_docker_network = "determined";
  std::string agent_docker_runtime = "runc";
  int64_t agent_reconnect_attempts = 5;
  std::chrono::milliseconds agent_reconnect_backoff{std::chrono::seconds{5}};
  std::chrono::milliseconds max_idle_agent_period{std::chrono::minutes{20}};
  /// The idle period after which an agent stops its own instance while
  /// the master is unreachable (policy/idle_self_shutdown), when shorter
  /// than max_idle_agent_period; zero = max_idle_agent_period.
  std::chrono::milliseconds unreachable_idle_agent_period{
      default_unreachable_idle_agent_period};
  std::chrono::milliseconds max_agent_starting_period{std::chrono::minutes{20}};
  /// How long pending demand must stay unmet before an instance is
  /// launched for it (upstream's provisioner acts every 5 s).
  std::chrono::milliseconds scale_up_delay{std::chrono::seconds{5}};
  int64_t min_instances = 0;
  int64_t max_instances = 5;
  std::chrono::milliseconds launch_error_timeout{0}; ///< 0 = never sticky
  /// Consolidation (policy/consolidation): trials on instances under-used
  /// for consolidate_after are asked to checkpoint and move so those
  /// instances can go. Off by default.
  bool consolidate = false;
  std::chrono::milliseconds consolidate_after{std::chrono::minutes{10}};
  /// A move's checkpoint plus restore time, weighed against the saving.
  std::chrono::milliseconds consolidation_move_cost{std::chrono::minutes{2}};
  int64_t launch_error_retries = 0;
  aws_provider_config aws;
  local_provider_config local;

  /// Slots one instance brings: instance_slots or the EC2 table (0 for a
  /// CPU type, 1 with cpu_slots_allowed) for aws; slots_per_instance for
  /// local; 0 for none.
  int64_t slots_per_instance() const;
};

/// What provider defaults depend on elsewhere in master.yaml.
struct provider_context {
  std::string cluster_id;
  uint16_t master_port = 8080;
  bool tls = false;
};

/// Reads and validates the provider block `r`: kind, master_url, the
/// instance bounds (min_instances <= max_instances), durations, and the
/// kind's own fields (aws: image_id and ssh_key_name required, a known
/// instance_type or instance_slots, spot_max_price only with spot; local:
/// aws-only fields are refused).
void read_provider(object_reader& r, provider_config& out,
                   const provider_context& ctx);

} // namespace det::conf
