// Every example master.yaml of the documentation loads as written
// (tests/data/conf/documented/README.md says where each comes from).

#include "conf/master_config.hpp"
#include "conf/reader.hpp"
#include "conf/redact.hpp"

#include "tests/conf/config_errors.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace det::conf;
using namespace std::chrono_literals;

namespace {

const std::string dir = DET_TEST_DATA_DIR "/conf/documented";

std::string read_file(const std::string& path) {
  std::ifstream in{path};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What CloudFormation's Fn::Sub puts in for the template's parameters and
// attributes; names absent here stay as written.
std::string cfn_substitute(std::string text) {
  static const std::map<std::string, std::string> values = {
      {"CheckpointBucket", "det-checkpoints-alice"},
      {"DBPassword", "pg-secret-1"},
      {"Database.Endpoint.Address", "db.cluster.us-west-2.rds.amazonaws.com"},
      {"AgentInstanceProfile.Arn",
       "arn:aws:iam::123456789012:instance-profile/det-agent"},
      {"AgentAmiId", "ami-0f4677bfc3161edc8"},
      {"Version", "0.38.1"},
      {"UserName", "alice"},
      {"AgentInstanceType", "p3.8xlarge"},
      {"MaxIdleAgentPeriod", "10m"},
      {"MaxInstances", "5"},
      {"AgentSecurityGroup.GroupId", "sg-0123456789abcdef0"},
      {"Keypair", "alice-key"},
  };
  for (const auto& [name, value] : values) {
    auto var = "${" + name + "}";
    for (auto at = text.find(var); at != std::string::npos;
         at = text.find(var, at + value.size()))
      text.replace(at, var.size(), value);
  }
  return text;
}

caf::expected<master_config> load(const std::string& name) {
  return parse_master_config(cfn_substitute(read_file(dir + "/" + name)));
}

TEST(documented_configs, every_example_in_the_folder_loads) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator{dir}) {
    if (e.path().extension() != ".yaml")
      continue;
    ++n;
    auto cfg = load(e.path().filename().string());
    EXPECT_TRUE(cfg) << e.path() << ": "
                     << (cfg ? "" : message_of(cfg.error()));
  }
  EXPECT_GE(n, 3);
}

// Regression: refused as "resource_pools[0].provider: unknown field
// 'security_group'".
TEST(documented_configs, dynamic_agents_provisioner_with_a_group_name_loads) {
  auto cfg = load("dynamic-agents-aws.yaml");
  ASSERT_TRUE(cfg) << message_of(cfg.error());
  ASSERT_EQ(cfg->resource_pools.size(), 1u);
  const auto& p = cfg->resource_pools[0].provider;
  EXPECT_EQ(cfg->resource_pools[0].pool_name, "default");
  EXPECT_EQ(p.type, provider_type::aws);
  EXPECT_EQ(p.master_url.host, "master_address");
  EXPECT_EQ(p.master_url.port, 8080);
  EXPECT_EQ(p.max_idle_agent_period, 5min);
  EXPECT_EQ(p.aws.region, "us-west-2");
  EXPECT_EQ(p.aws.image_id, "ami-12345");
  EXPECT_EQ(p.aws.security_group_name, "group_name");
  EXPECT_EQ(p.aws.network_interface.security_group_id, "");
  EXPECT_EQ(p.aws.ssh_key_name, "determined-ai-ssh");
  EXPECT_EQ(p.aws.tag_key, "determined-ai");
  EXPECT_EQ(p.aws.tag_value, "agent");
  EXPECT_EQ(p.aws.root_volume_size, 100);
  EXPECT_EQ(p.max_instances, 5);
  EXPECT_EQ(p.slots_per_instance(), 4); // p3.8xlarge
}

TEST(documented_configs, cloudformation_master_yaml_loads_once_substituted) {
  auto cfg = load("aws-cloudformation-master.yaml");
  ASSERT_TRUE(cfg) << message_of(cfg.error());
  EXPECT_EQ(cfg->checkpoint_storage.type, "s3");
  EXPECT_EQ(cfg->db.password, "pg-secret-1");
  const auto& p = cfg->resource_pools.at(0).provider;
  EXPECT_EQ(p.aws.network_interface.security_group_id, "sg-0123456789abcdef0");
  EXPECT_EQ(p.agent_docker_image, "determinedai/determined-agent:0.38.1");
  EXPECT_EQ(p.max_idle_agent_period, 10min);
  EXPECT_EQ(redact(cfg->effective)["db"]["password"], redacted_text);
}

TEST(documented_configs, database_snippet_loads_as_written) {
  auto cfg = load("aws-manual-database.yaml");
  ASSERT_TRUE(cfg) << message_of(cfg.error());
  EXPECT_EQ(cfg->db.user, "${database-user}");
  EXPECT_EQ(cfg->db.port, 5432);
}

const char* aws_block = "provisioner:\n"
                        "  provider: aws\n"
                        "  image_id: ami-12345\n"
                        "  ssh_key_name: k\n"
                        "  instance_type: p3.8xlarge\n";

TEST(documented_configs, security_group_takes_an_sg_id_as_the_group_id) {
  auto cfg = parse_master_config(std::string{aws_block}
                                 + "  security_group: sg-0a1b2c3d\n");
  ASSERT_TRUE(cfg) << message_of(cfg.error());
  const auto& aws = cfg->resource_pools[0].provider.aws;
  EXPECT_EQ(aws.network_interface.security_group_id, "sg-0a1b2c3d");
  EXPECT_EQ(aws.security_group_name, "");
}

TEST(documented_configs, bad_security_groups_are_named_with_their_value) {
  struct row {
    std::string extra;
    std::string expected;
  };
  for (const auto& [extra, expected] : std::vector<row>{
           {"  security_group: sg-nothex\n",
            "provisioner.security_group: \"sg-nothex\" is not a security "
            "group id"},
           {"  security_group: \"\"\n",
            "provisioner.security_group: must not be empty"},
           {"  security_group: sg-0a1b2c3d\n  network_interface: "
            "{security_group_id: sg-11111111}\n",
            "provisioner.security_group: \"sg-0a1b2c3d\" conflicts with "
            "network_interface.security_group_id \"sg-11111111\""},
           {"  security_group: web\n  network_interface: "
            "{security_group_id: sg-11111111}\n",
            "provisioner.security_group: \"web\" conflicts"},
       }) {
    auto err = det::test::master_error_of(std::string{aws_block} + extra);
    EXPECT_NE(err.find(expected), std::string::npos) << extra << "\n" << err;
  }
  EXPECT_NE(
      det::test::master_error_of(
          "provisioner: {type: local, security_group: web}\n")
          .find("provisioner.security_group: only valid for the aws provider"),
      std::string::npos);
}

// det-deploy's templates without an AMI: det-master reads it from SSM.
TEST(documented_configs, image_id_may_name_an_ssm_parameter) {
  auto cfg = parse_master_config(
      "provisioner:\n  provider: aws\n  ssh_key_name: k\n"
      "  image_id: ssm:/aws/service/debian/release/12/latest/amd64\n"
      "  instance_type: t2.xlarge\n  cpu_slots_allowed: true\n");
  ASSERT_TRUE(cfg) << message_of(cfg.error());
  EXPECT_EQ(cfg->resource_pools[0].provider.aws.image_id,
            "ssm:/aws/service/debian/release/12/latest/amd64");
  EXPECT_NE(det::test::master_error_of(
                "provisioner:\n  provider: aws\n  ssh_key_name: k\n"
                "  image_id: \"ssm:\"\n  instance_type: p3.2xlarge\n")
                .find("provisioner.image_id: \"ssm:\" names no SSM parameter"),
            std::string::npos);
}

// A top-level provisioner's errors name the fields as the file has them.
TEST(documented_configs, errors_in_a_top_level_provisioner_name_its_path) {
  auto err = det::test::master_error_of(std::string{aws_block}
                                        + "  max_instances: lots\n"
                                        + "  securty_group: x\n");
  EXPECT_NE(err.find("provisioner.max_instances: expected an integer, got "
                     "\"lots\""),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("provisioner: unknown field 'securty_group' (did you "
                     "mean 'security_group'?)"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("resource_pools[0]"), std::string::npos) << err;
}

} // namespace
