// The cloudwatch: section of master.yaml and agent.yaml.

#include "conf/agent_config.hpp"
#include "conf/master_config.hpp"
#include "conf/reader.hpp"

#include <gtest/gtest.h>

using namespace det::conf;
using namespace std::chrono_literals;

namespace {

std::string agent_error(std::string_view yaml) {
  auto cfg = parse_agent_config(yaml);
  return cfg ? "<no error>" : message_of(cfg.error());
}

} // namespace

TEST(cloudwatch_config, off_by_default_with_the_documented_defaults) {
  auto cfg = parse_agent_config("");
  ASSERT_TRUE(cfg);
  const auto& cw = cfg->cloudwatch;
  EXPECT_FALSE(cw.enabled);
  EXPECT_EQ(cw.log_group, "/determined/determined/journald");
  EXPECT_TRUE(cw.journald);
  EXPECT_EQ(cw.own_logs, "auto");
  EXPECT_EQ(cw.metrics_interval, 60s);
  EXPECT_EQ(cw.metrics_namespace, "Determined");
  // The effective config shows them (det-master --check-config prints it).
  EXPECT_EQ(cfg->effective["cloudwatch"]["log_group"],
            "/determined/determined/journald");
}

TEST(cloudwatch_config, master_yaml_reads_the_section) {
  auto cfg = parse_master_config(R"(
cloudwatch:
  enabled: true
  log_group: /determined/prod/journald
  log_stream: master-1
  region: eu-west-1
  endpoint_url: http://127.0.0.1:5000
  metrics_interval: 30s
  journald: false
)");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_TRUE(cfg->cloudwatch.enabled);
  EXPECT_EQ(cfg->cloudwatch.log_group, "/determined/prod/journald");
  EXPECT_EQ(cfg->cloudwatch.log_stream, "master-1");
  EXPECT_EQ(cfg->cloudwatch.region, "eu-west-1");
  EXPECT_EQ(cfg->cloudwatch.metrics_interval, 30s);
  EXPECT_FALSE(cfg->cloudwatch.journald);
}

TEST(cloudwatch_config, bad_values_are_refused_naming_the_field) {
  EXPECT_NE(agent_error("cloudwatch: {log_group: 'bad group!'}")
                .find("cloudwatch.log_group: expected 1 to 512"),
            std::string::npos);
  EXPECT_NE(agent_error("cloudwatch: {log_stream: 'a:b'}")
                .find("cloudwatch.log_stream"),
            std::string::npos);
  EXPECT_NE(agent_error("cloudwatch: {namespace: AWS/EC2}")
                .find("cloudwatch.namespace"),
            std::string::npos);
  EXPECT_NE(agent_error("cloudwatch: {endpoint_url: ftp://x}")
                .find("cloudwatch.endpoint_url"),
            std::string::npos);
  EXPECT_NE(agent_error("cloudwatch: {own_logs: sometimes}")
                .find("cloudwatch.own_logs"),
            std::string::npos);
  EXPECT_NE(agent_error("cloudwatch: {metrics_interval: 10ms}")
                .find("cloudwatch.metrics_interval"),
            std::string::npos);
  EXPECT_NE(agent_error("cloudwatch: {max_queued_events: 5}")
                .find("cloudwatch.max_queued_events"),
            std::string::npos);
  EXPECT_NE(agent_error("cloudwatch: {enabld: true}")
                .find("cloudwatch: unknown field 'enabld'"),
            std::string::npos);
}

TEST(cloudwatch_config, the_launch_environment_turns_an_agent_on) {
  auto cfg = parse_agent_config("");
  ASSERT_TRUE(cfg);
  auto env = [](const char* name) -> const char* {
    std::string n{name};
    if (n == "DET_CLOUDWATCH_LOG_GROUP")
      return "/determined/c1/journald";
    if (n == "DET_CLUSTER_ID")
      return "c1";
    return nullptr;
  };
  auto out = apply_overrides(*cfg, overrides_from_env(env), "environment");
  ASSERT_TRUE(out);
  EXPECT_TRUE(out->cloudwatch.enabled);
  EXPECT_EQ(out->cloudwatch.log_group, "/determined/c1/journald");
  EXPECT_EQ(out->cloudwatch.cluster_id, "c1");
}
