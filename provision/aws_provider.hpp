#pragma once

// The aws provider: a pool's instances are EC2 instances (on-demand through
// RunInstances, or one-time spot requests through RequestSpotInstances),
// every call on aws/async_ec2's worker threads, results to callbacks.
//
// - Ownership: everything it launches carries the pool's exact
//   `tag_key: tag_value`, `det-pool: <pool>`, `det-cluster-id`, `Name` and
//   `det-launch: <client token>` (the launch's identity, which lets a
//   restarted master adopt what a crashed one launched; EC2 also keeps the
//   ClientToken, moto does not honour it). Listing filters on the tags and
//   checks them again client-side (filter values are wildcards on EC2); it
//   terminates or cancels only ids it saw with those tags or launched.
// - Bounded API use: list() answers from a cache younger than
//   `list_interval` (refreshed after each launch, terminate or cancel), one
//   paginated DescribeInstances (plus DescribeSpotInstanceRequests for
//   spot pools) per refresh; TerminateInstances and CancelSpot... are
//   batched by the client.
// - Spot instances are untagged on AWS when their request is fulfilled: the
//   listing tags them (CreateTags, one call for all) with the pool's tags.
// - User data starts det-agent with the master URL, the pool, the agent
//   token and the instance id (read from IMDSv2) as agent id.
// - Test hook: test_crash_after = run_instances (or
//   request_spot_instances; DET_TEST_CRASH_AFTER, conf/env_overrides.hpp)
//   makes the process _exit(70) right after that call returned, before its
//   result is recorded.

#include "aws/async_ec2.hpp"
#include "conf/provider_config.hpp"
#include "core/instance_provider.hpp"
#include "core/provisioning.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace det::provision {

struct aws_provider_options {
  conf::aws_provider_config aws;
  std::string pool;
  std::string cluster_id;
  /// Resolved (no IMDS alias left), e.g. http://10.0.0.5:8080.
  std::string master_url;
  std::string agent_token; ///< secret: only in user data, never logged
  std::string agent_docker_image;
  std::string startup_script;
  /// The pool's max_idle_agent_period: the agent stops its own instance
  /// after it, idle while the master is unreachable (agent/idle_shutdown).
  std::chrono::milliseconds max_idle_agent_period{std::chrono::minutes{20}};
  /// The pool's unreachable_idle_agent_period: the shorter idle period
  /// while the master is unreachable (zero: max_idle_agent_period).
  std::chrono::milliseconds unreachable_idle_agent_period{0};
  std::chrono::milliseconds list_interval{std::chrono::seconds{10}};
  std::chrono::milliseconds orphan_grace{std::chrono::minutes{2}};
  std::chrono::milliseconds consistency_grace{std::chrono::seconds{60}};
  /// DescribeInstances MaxResults (0 = EC2's default pages).
  int page_size = 1000;
  /// The crash-recovery tests' hook (see above); "" never.
  std::string test_crash_after;
};

/// The tag key of the pool name, of the cluster id and of the launch token.
extern const char* const pool_tag_key;
extern const char* const cluster_tag_key;
extern const char* const launch_tag_key;

/// The user data script of an instance of `o` (contains the agent token).
std::string agent_user_data(const aws_provider_options& o);

class aws_provider : public instance_provider,
                     public std::enable_shared_from_this<aws_provider> {
public:
  aws_provider(aws_provider_options opts, std::shared_ptr<aws::async_ec2> ec2);

  void launch(const launch_spec& spec,
              provider_done<caf::expected<launch_result>> done) override;
  void terminate(std::vector<std::string> ids,
                 provider_done<caf::error> done) override;
  void cancel_spot_requests(std::vector<std::string> ids,
                            provider_done<caf::error> done) override;
  void list(provider_done<caf::expected<provider_inventory>> done) override;
  std::vector<std::string> instance_types() const override;
  bool spot() const override;
  int64_t consistency_grace_us() const override;
  int64_t orphan_grace_us() const override;
  std::string launch_error_kind(const caf::error& err) const override;

  /// The tags every launched resource gets (without det-launch).
  std::vector<aws::ec2_tag> pool_tags() const;

  /// Whether `tags` carry this pool's exact ownership tags.
  bool ours(const std::vector<aws::ec2_tag>& tags) const;

private:
  void refresh(provider_done<caf::expected<provider_inventory>> done);
  void finish_listing(provider_inventory inv,
                      std::vector<aws::spot_instance_request> reqs,
                      provider_done<caf::expected<provider_inventory>> done);
  std::vector<std::string> only_ours(std::vector<std::string> ids);
  /// The answer to RunInstances or RequestSpotInstances: counted, the
  /// cache dropped, and the ids it created (`id_of` each item) recorded as
  /// ours in `ids` of the result.
  template <class Item, class IdOf>
  void launched(const char* operation, const char* crash_point,
                caf::expected<std::vector<Item>> res, IdOf id_of,
                std::vector<std::string> launch_result::*ids,
                const provider_done<caf::expected<launch_result>>& done);
  void invalidate();
  /// One EC2 call for det_provisioner_api_calls_total (and _errors_).
  void count(const char* operation, bool ok);

  aws_provider_options opts_;
  std::shared_ptr<aws::async_ec2> ec2_;
  std::mutex mtx_;
  std::optional<provider_inventory> cache_;
  std::chrono::steady_clock::time_point cached_at_;
  /// Ids seen with our tags or launched by us (instances, spot requests).
  std::set<std::string> owned_;
};

} // namespace det::provision

#include "aws/async_executor.hpp"
#include "conf/env_overrides.hpp"
#include "conf/master_config.hpp"

namespace det::provision {

/// The aws provider of pool `rp`: region from the config or the credential
/// chain's sources, endpoint from endpoint_url / AWS_ENDPOINT_URL, the
/// master_url alias resolved through IMDS, a security group given by name
/// resolved to its id (DescribeSecurityGroups). Tunables from the
/// environment (`env`): the list interval, the orphan grace, the page size
/// and the crash hook. Errors name the field that could not be used.
caf::expected<std::shared_ptr<aws_provider>>
make_aws_provider(const conf::resource_pool_config& rp,
                  const std::string& cluster_id, const std::string& agent_token,
                  std::shared_ptr<aws::async_executor> executor,
                  const conf::provisioner_env& env);

/// Test and operator tunables of an aws pool's provisioner from the
/// environment (`env`): the tick, the most instances per launch, the least
/// gap between decisions, and wake (false: decide on the tick only, as
/// before wakes existed; for comparisons).
void tune_from_env(provisioner_options& po, const conf::provisioner_env& env);

} // namespace det::provision
