#include "conf/ec2_instance_slots.hpp"
#include "conf/master_config.hpp"
#include "conf/master_url.hpp"

#include "tests/conf/config_errors.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det::conf;
using namespace std::chrono_literals;

namespace {

// A master.yaml with one pool whose provider block is `body` (indented by
// the caller with six spaces per line).
std::string with_provider(const std::string& body) {
  return "cluster_id: c1\nresource_pools:\n  - pool_name: p\n    provider:\n"
         + body;
}

const char* minimal_aws = "      type: aws\n      image_id: ami-1\n"
                          "      ssh_key_name: k\n";

caf::expected<master_config> parse(const std::string& yaml) {
  return parse_master_config(yaml);
}

std::string provider_error_of(const std::string& yaml) {
  return det::test::error_text(parse(yaml));
}

TEST(provider_config, aws_defaults_follow_upstream) {
  auto cfg = parse(with_provider(minimal_aws));
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  const auto& p = cfg->resource_pools[0].provider;
  EXPECT_EQ(p.type, provider_type::aws);
  EXPECT_EQ(p.min_instances, 0);
  EXPECT_EQ(p.max_instances, 5);
  EXPECT_EQ(p.max_idle_agent_period, 20min);
  // Ours: the idle period while the master is unreachable.
  EXPECT_EQ(p.unreachable_idle_agent_period, 1min);
  EXPECT_EQ(p.max_agent_starting_period, 20min);
  EXPECT_EQ(p.scale_up_delay, 5s); // upstream's provisioner cadence
  EXPECT_EQ(p.agent_reconnect_attempts, 5);
  EXPECT_EQ(p.agent_reconnect_backoff, 5s);
  EXPECT_EQ(p.launch_error_timeout, 0ms);
  EXPECT_EQ(p.aws.instance_type, "g4dn.metal");
  EXPECT_EQ(p.slots_per_instance(), 8);
  EXPECT_EQ(p.aws.root_volume_size, 200);
  EXPECT_EQ(p.aws.instance_name, "determined-ai-agent");
  EXPECT_EQ(p.aws.tag_key, "managed_by");
  EXPECT_EQ(p.aws.tag_value, "determined-ai-c1");
  EXPECT_TRUE(p.aws.network_interface.public_ip);
  EXPECT_FALSE(p.aws.spot);
  EXPECT_FALSE(p.aws.spot_max_price);
  EXPECT_EQ(p.master_url.to_url(), "http://local-ipv4:8080");
  EXPECT_EQ(p.master_url.alias, host_alias::local_ipv4);
  // Defaults are written into the effective tree.
  const auto& eff = cfg->effective["resource_pools"][0]["provider"];
  EXPECT_EQ(eff["max_idle_agent_period"], "20m");
  EXPECT_EQ(eff["unreachable_idle_agent_period"], "1m");
  EXPECT_EQ(eff["scale_up_delay"], "5s");
  EXPECT_EQ(eff["tag_value"], "determined-ai-c1");
  EXPECT_EQ(eff["network_interface"]["public_ip"], true);
}

TEST(provider_config, provisioner_and_provider_spellings_are_the_same_block) {
  auto a = parse("resource_pools:\n  - pool_name: default\n    provisioner:\n"
                 "      provider: local\n      slots_per_instance: 4\n");
  ASSERT_TRUE(a) << det::render(a.error());
  EXPECT_EQ(a->resource_pools[0].provider.type, provider_type::local);
  EXPECT_EQ(a->resource_pools[0].provider.slots_per_instance(), 4);
  EXPECT_TRUE(a->effective["resource_pools"][0].contains("provider"));
  EXPECT_FALSE(a->effective["resource_pools"][0].contains("provisioner"));
}

TEST(provider_config, durations_accept_go_strings_and_plain_seconds) {
  auto cfg = parse(with_provider(std::string{minimal_aws}
                                 + "      max_idle_agent_period: 1h30m\n"
                                   "      max_agent_starting_period: 300\n"
                                   "      launch_error_timeout: 90s\n"
                                   "      unreachable_idle_agent_period: 2m\n"
                                   "      scale_up_delay: 0s\n"));
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  const auto& p = cfg->resource_pools[0].provider;
  EXPECT_EQ(p.scale_up_delay, 0ms); // launch at once
  EXPECT_EQ(p.max_idle_agent_period, 90min);
  EXPECT_EQ(p.max_agent_starting_period, 5min);
  EXPECT_EQ(p.launch_error_timeout, 90s);
  EXPECT_EQ(p.unreachable_idle_agent_period, 2min);
}

TEST(provider_config, consolidation_is_off_unless_asked) {
  auto off = parse(with_provider(minimal_aws));
  ASSERT_TRUE(off) << det::render(off.error());
  EXPECT_FALSE(off->resource_pools[0].provider.consolidate);
  EXPECT_EQ(off->resource_pools[0].provider.consolidate_after, 10min);
  EXPECT_EQ(off->resource_pools[0].provider.consolidation_move_cost, 2min);
  auto on = parse(with_provider(std::string{minimal_aws}
                                + "      consolidate: true\n"
                                  "      consolidate_after: 30m\n"
                                  "      consolidation_move_cost: 5m\n"));
  ASSERT_TRUE(on) << det::render(on.error());
  const auto& p = on->resource_pools[0].provider;
  EXPECT_TRUE(p.consolidate);
  EXPECT_EQ(p.consolidate_after, 30min);
  EXPECT_EQ(p.consolidation_move_cost, 5min);
}

TEST(provider_config, spot_price_given_as_a_number_is_kept_as_text) {
  auto cfg =
      parse(with_provider(std::string{minimal_aws}
                          + "      spot: true\n      spot_max_price: 0.5\n"));
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->resource_pools[0].provider.aws.spot_max_price, "0.5");
}

TEST(provider_config, custom_tags_accept_a_map_and_store_the_list_form) {
  auto cfg = parse(with_provider(std::string{minimal_aws}
                                 + "      custom_tags: {team: ml, cost: x}\n"));
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  const auto& tags = cfg->resource_pools[0].provider.aws.custom_tags;
  ASSERT_EQ(tags.size(), 2u);
  EXPECT_TRUE(cfg->effective["resource_pools"][0]["provider"]["custom_tags"]
                  .is_array());
}

TEST(provider_config, unknown_instance_type_with_instance_slots_is_accepted) {
  auto cfg = parse(with_provider(std::string{minimal_aws}
                                 + "      instance_type: x9.huge\n"
                                   "      instance_slots: 3\n"));
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->resource_pools[0].provider.slots_per_instance(), 3);
}

TEST(provider_config, endpoint_url_points_the_pool_at_a_private_cloud) {
  auto cfg = parse(with_provider(std::string{minimal_aws}
                                 + "      endpoint_url: http://127.0.0.1:5000\n"
                                   "      region: us-east-1\n"));
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->resource_pools[0].provider.aws.endpoint_url,
            "http://127.0.0.1:5000");
}

struct alias_case {
  const char* url;
  host_alias alias;
  const char* rendered;
};

TEST(master_url, ec2_aliases_are_recognised_in_both_spellings) {
  const alias_case cases[] = {
      {"http://local-ipv4:8080", host_alias::local_ipv4,
       "http://local-ipv4:8080"},
      {"public-ipv4", host_alias::public_ipv4, "http://public-ipv4:8080"},
      {"ec2.local-hostname:80", host_alias::local_hostname,
       "http://local-hostname:80"},
      {"https://public-hostname", host_alias::public_hostname,
       "https://public-hostname:8080"},
      {"10.0.0.5:9000", host_alias::none, "http://10.0.0.5:9000"},
      {"http://ec2.example.com", host_alias::none,
       "http://ec2.example.com:8080"},
  };
  for (const auto& c : cases) {
    auto a = parse_master_url(c.url);
    ASSERT_TRUE(a) << c.url << ": " << det::render(a.error());
    EXPECT_EQ(a->alias, c.alias) << c.url;
    EXPECT_EQ(a->to_url(), c.rendered) << c.url;
  }
}

TEST(master_url, malformed_urls_are_refused) {
  for (auto url :
       {"ftp://x", "http://x/path", "http://:80", "x:0", "x:99999", "x:ab"})
    EXPECT_FALSE(parse_master_url(url)) << url;
}

TEST(ec2_instance_slots, table_knows_gpu_and_cpu_types) {
  EXPECT_EQ(ec2_gpu_count("p3.8xlarge"), 4);
  EXPECT_EQ(ec2_gpu_count("p2.16xlarge"), 16);
  EXPECT_EQ(ec2_gpu_count("g4dn.metal"), 8);
  EXPECT_EQ(ec2_gpu_count("t2.xlarge"), 0);
  EXPECT_EQ(ec2_gpu_count("m5.large"), 0);
  EXPECT_FALSE(ec2_gpu_count("x1.huge"));
}

class provider_errors : public testing::TestWithParam<det::test::error_case> {};

TEST_P(provider_errors, error_names_the_field_path) {
  const auto& c = GetParam();
  auto err = provider_error_of(c.yaml);
  EXPECT_NE(err.find(c.want), std::string::npos)
      << "want: " << c.want << "\ngot:  " << err;
}

const std::string P = "resource_pools[0].provider.";

const det::test::error_case provider_error_cases[] = {
    {"missing_type", with_provider("      max_instances: 2\n"),
     "resource_pools[0].provider.type: required: 'aws' or 'local'"},
    {"gcp_not_supported", with_provider("      type: gcp\n"),
     "resource_pools[0].provider.type: expected one of 'aws', 'local', got "
     "\"gcp\""},
    {"type_and_provider_disagree",
     with_provider("      type: aws\n      provider: local\n"),
     "resource_pools[0].provider.provider: conflicts with 'type'"},
    {"aws_without_image",
     with_provider("      type: aws\n      ssh_key_name: k\n"),
     "resource_pools[0].provider.image_id: required for the aws provider"},
    {"aws_without_key",
     with_provider("      type: aws\n      image_id: ami-1\n"),
     "resource_pools[0].provider.ssh_key_name: required for the aws provider"},
    {"min_above_max",
     with_provider(std::string{minimal_aws}
                   + "      min_instances: 6\n      max_instances: 5\n"),
     "resource_pools[0].provider.min_instances: must not exceed max_instances "
     "(5), got 6"},
    {"max_zero",
     with_provider(std::string{minimal_aws} + "      max_instances: 0\n"),
     "resource_pools[0].provider.max_instances: must be at least 1, got 0"},
    {"spot_price_without_spot",
     with_provider(std::string{minimal_aws} + "      spot_max_price: '0.5'\n"),
     "resource_pools[0].provider.spot_max_price: only valid with spot: true"},
    {"spot_price_not_a_price",
     with_provider(std::string{minimal_aws}
                   + "      spot: true\n      spot_max_price: cheap\n"),
     "resource_pools[0].provider.spot_max_price: expected a price such as "
     "\"0.90\", got \"cheap\""},
    {"unknown_instance_type",
     with_provider(std::string{minimal_aws} + "      instance_type: x9.huge\n"),
     "resource_pools[0].provider.instance_type: unknown instance type "
     "\"x9.huge\""},
    {"alternative_with_other_slot_count",
     with_provider(
         std::string{minimal_aws}
         + "      instance_type: p3.8xlarge\n"
           "      alternative_instance_types: [g4dn.12xlarge, p3.16xlarge]\n"),
     "resource_pools[0].provider.alternative_instance_types[1]: "
     "\"p3.16xlarge\" has 8 slots"},
    {"idle_period_zero",
     with_provider(std::string{minimal_aws}
                   + "      max_idle_agent_period: 0s\n"),
     "resource_pools[0].provider.max_idle_agent_period: must be a positive "
     "duration"},
    {"idle_period_bad_unit",
     with_provider(std::string{minimal_aws}
                   + "      max_idle_agent_period: 5 minutes\n"),
     "resource_pools[0].provider.max_idle_agent_period: expected a duration"},
    {"root_volume_too_small",
     with_provider(std::string{minimal_aws} + "      root_volume_size: 8\n"),
     "resource_pools[0].provider.root_volume_size: must be at least 100, got "
     "8"},
    {"network_interface_typo",
     with_provider(std::string{minimal_aws}
                   + "      network_interface: {public_ips: true}\n"),
     "resource_pools[0].provider.network_interface: unknown field 'public_ips' "
     "(did you mean 'public_ip'?)"},
    {"public_ip_not_bool",
     with_provider(std::string{minimal_aws}
                   + "      network_interface: {public_ip: 'yes'}\n"),
     "resource_pools[0].provider.network_interface.public_ip: expected a "
     "boolean"},
    {"master_url_with_path",
     with_provider(std::string{minimal_aws}
                   + "      master_url: http://m:8080/api\n"),
     "resource_pools[0].provider.master_url: a path is not allowed"},
    {"reserved_custom_tag",
     with_provider(std::string{minimal_aws}
                   + "      custom_tags: [{key: Name, value: x}]\n"),
     "resource_pools[0].provider.custom_tags[0].key: 'Name' is set by "
     "det-master itself"},
    {"aws_field_on_local_pool",
     with_provider("      type: local\n      spot: true\n"),
     "resource_pools[0].provider.spot: only valid for the aws provider"},
    {"provider_typo",
     with_provider(std::string{minimal_aws} + "      max_instance: 3\n"),
     "resource_pools[0].provider: unknown field 'max_instance' (did you mean "
     "'max_instances'?)"},
    {"endpoint_not_url",
     with_provider(std::string{minimal_aws}
                   + "      endpoint_url: localhost:5000\n"),
     "resource_pools[0].provider.endpoint_url: expected an http:// or https:// "
     "URL"},
};

INSTANTIATE_TEST_SUITE_P(table, provider_errors,
                         testing::ValuesIn(provider_error_cases),
                         [](const auto& p) {
                           return std::string{p.param.name};
                         });

} // namespace
