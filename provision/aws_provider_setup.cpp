// make_aws_provider and tune_from_env (aws_provider.hpp): what an aws pool's
// provisioner needs from the environment at start-up.

#include "provision/aws_provider.hpp"

#include "aws/credential_chain.hpp"
#include "aws/imds_client.hpp"
#include "aws/query_ec2_client.hpp"
#include "aws/security_groups.hpp"
#include "aws/ssm_client.hpp"
#include "messages/errc.hpp"
#include "net/http_client.hpp"

namespace det::provision {

namespace {

/// The master URL with its IMDS alias (if any) resolved.
caf::expected<std::string> resolve_master_url(const conf::master_address& a) {
  if (a.alias == conf::host_alias::none)
    return a.to_url();
  aws::imds_client imds{aws::imds_config_from_env(aws::process_environment()),
                        net::make_curl_http_client()};
  caf::expected<std::string> host = std::string{};
  switch (a.alias) {
  case conf::host_alias::local_ipv4:
    host = imds.local_ipv4();
    break;
  case conf::host_alias::public_ipv4:
    host = imds.public_ipv4();
    break;
  case conf::host_alias::local_hostname:
    host = imds.local_hostname();
    break;
  case conf::host_alias::public_hostname:
    host = imds.public_hostname();
    break;
  case conf::host_alias::none:
    break;
  }
  if (!host)
    return make_error(errc::invalid_argument,
                      std::string{"provisioner.master_url: cannot resolve "}
                          + conf::to_string(a.alias)
                          + " through IMDS: " + render(host.error()));
  return a.scheme + "://" + *host + ":" + std::to_string(a.port);
}

} // namespace

caf::expected<std::shared_ptr<aws_provider>>
make_aws_provider(const conf::resource_pool_config& rp,
                  const std::string& cluster_id, const std::string& agent_token,
                  std::shared_ptr<aws::async_executor> executor,
                  const conf::provisioner_env& env) {
  const auto& pc = rp.provider;
  aws_provider_options o;
  o.aws = pc.aws;
  o.pool = rp.pool_name;
  o.cluster_id = cluster_id;
  o.agent_token = agent_token;
  o.agent_docker_image = pc.agent_docker_image;
  o.startup_script = pc.startup_script;
  o.max_idle_agent_period = pc.max_idle_agent_period;
  o.unreachable_idle_agent_period = pc.unreachable_idle_agent_period;
  o.list_interval = env.list_interval.value_or(o.list_interval);
  o.orphan_grace = env.orphan_grace.value_or(o.orphan_grace);
  o.page_size = env.page_size.value_or(o.page_size);
  o.test_crash_after = env.test_crash_after;
  auto url = resolve_master_url(pc.master_url);
  if (!url)
    return std::move(url.error());
  o.master_url = *url;
  aws::ec2_client_config cc;
  cc.endpoint_url = pc.aws.endpoint_url;
  if (!pc.aws.region.empty()) {
    cc.region = pc.aws.region;
  } else if (auto r = aws::resolve_region()) {
    cc.region = *r;
  } else {
    return make_error(errc::invalid_argument,
                      "provisioner.region: not set and " + render(r.error()));
  }
  auto creds = aws::make_default_credential_chain();
  // image_id: ssm:NAME (det-deploy's templates when no AMI was given): the
  // AMI id the parameter holds now.
  if (pc.aws.image_id.rfind("ssm:", 0) == 0) {
    auto name = pc.aws.image_id.substr(4);
    aws::ssm_client_config sc;
    sc.region = cc.region;
    sc.endpoint_url = pc.aws.endpoint_url;
    auto got = aws::make_curl_ssm_client(sc, creds)->get_parameters({name});
    if (!got)
      return make_error(errc::invalid_argument,
                        "provisioner.image_id: cannot read SSM parameter "
                            + name + ": " + conf::message_of(got.error()));
    auto i = got->values.find(name);
    if (i == got->values.end())
      return make_error(errc::invalid_argument,
                        "provisioner.image_id: no SSM parameter " + name
                            + " in " + cc.region);
    o.aws.image_id = i->second;
  }
  auto client = aws::make_curl_ec2_client(cc, creds);
  // `security_group: NAME`: launches take ids, so look it up once here.
  if (!pc.aws.security_group_name.empty()) {
    auto id =
        aws::security_group_id_by_name(*client, pc.aws.security_group_name);
    if (!id)
      return make_error(errc::invalid_argument,
                        "provisioner.security_group: "
                            + conf::message_of(id.error()));
    o.aws.network_interface.security_group_id = *id;
  }
  auto ec2 =
      std::make_shared<aws::async_ec2>(std::move(client), std::move(executor));
  return std::make_shared<aws_provider>(std::move(o), std::move(ec2));
}

void tune_from_env(provisioner_options& po, const conf::provisioner_env& env) {
  po.tick_interval = env.tick.value_or(po.tick_interval);
  po.min_decision_gap = env.min_gap.value_or(po.min_decision_gap);
  po.wake_on_change = env.wake.value_or(po.wake_on_change);
  po.max_per_launch = env.max_per_launch.value_or(po.max_per_launch);
}

} // namespace det::provision
