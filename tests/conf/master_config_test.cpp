#include "conf/master_config.hpp"

#include "conf/reader.hpp"
#include "util/log.hpp"

#include "tests/conf/config_errors.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det::conf;
using namespace std::chrono_literals;

namespace {

TEST(master_config, embedded_default_file_loads_with_a_local_pool) {
  auto cfg = load_master_config(DET_CONF_DIR "/master.yaml");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->port, 8080);
  ASSERT_EQ(cfg->resource_pools.size(), 1u);
  const auto& pool = cfg->resource_pools[0];
  EXPECT_EQ(pool.pool_name, "default");
  EXPECT_EQ(pool.provider.type, provider_type::local);
  EXPECT_EQ(pool.provider.slots_per_instance(), 1);
  EXPECT_EQ(pool.provider.max_instances, 2);
  EXPECT_EQ(pool.provider.max_idle_agent_period, 1min);
  EXPECT_EQ(pool.provider.master_url.to_url(), "http://127.0.0.1:8080");
  EXPECT_EQ(cfg->default_compute_resource_pool, "default");
}

// Found by fuzz_master_config: a resource_manager that is not a mapping
// was reported, and then the default pool names were written into it,
// which threw out of parse_master_config (det-master died in terminate
// instead of naming the field).
TEST(master_config, a_resource_manager_that_is_not_a_mapping_is_named) {
  for (auto yaml : {"resource_manager: x\nresource_pools: [{pool_name: a}]\n",
                    "resource_manager: [1]\nresource_pools: [{pool_name: a}]\n",
                    "resource_manager: 7\n"}) {
    std::string err;
    EXPECT_NO_THROW(err = det::test::master_error_of(yaml)) << yaml;
    EXPECT_NE(err.find("resource_manager"), std::string::npos) << err;
  }
}

TEST(master_config, every_log_level_it_accepts_is_one_the_log_can_set) {
  for (const char* name : {"trace", "debug", "info", "warn", "warning", "error",
                           "critical", "fatal", "panic"}) {
    auto cfg = parse_master_config(std::string{"log: {level: "} + name + "}\n");
    ASSERT_TRUE(cfg) << name << ": " << det::render(cfg.error());
    EXPECT_EQ(cfg->log.level, name);
    EXPECT_TRUE(det::log::parse_level(cfg->log.level)) << name;
  }
  EXPECT_NE(det::test::master_error_of("log: {level: verbose}\n")
                .find("log.level: expected one of"),
            std::string::npos);
}

TEST(master_config, notebook_timeout_is_whole_seconds_and_off_by_default) {
  auto none = parse_master_config("");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->notebook_timeout_s, 0);
  auto null = parse_master_config("notebook_timeout: null\n");
  ASSERT_TRUE(null);
  EXPECT_EQ(null->notebook_timeout_s, 0);
  auto set = parse_master_config("notebook_timeout: 1800\n");
  ASSERT_TRUE(set) << det::render(set.error());
  EXPECT_EQ(set->notebook_timeout_s, 1800);
  for (auto bad : {"notebook_timeout: 0\n", "notebook_timeout: -5\n",
                   "notebook_timeout: soon\n"})
    EXPECT_NE(det::test::master_error_of(bad).find("notebook_timeout"),
              std::string::npos)
        << bad;
}

TEST(master_config, tensorboard_timeout_is_whole_seconds_300_by_default) {
  auto none = parse_master_config("");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->tensorboard_timeout_s, 300);
  auto set = parse_master_config("tensorboard_timeout: 60\n");
  ASSERT_TRUE(set) << det::render(set.error());
  EXPECT_EQ(set->tensorboard_timeout_s, 60);
  EXPECT_NE(det::test::master_error_of("tensorboard_timeout: 0\n")
                .find("tensorboard_timeout"),
            std::string::npos);
}

TEST(master_config, aws_example_file_loads_two_pools) {
  auto cfg = load_master_config(DET_CONF_DIR "/master-aws.yaml");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  ASSERT_EQ(cfg->resource_pools.size(), 2u);
  const auto* gpu = cfg->find_pool("gpu-pool");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->provider.type, provider_type::aws);
  EXPECT_TRUE(gpu->provider.aws.spot);
  EXPECT_EQ(gpu->provider.aws.spot_max_price, "3.06");
  EXPECT_EQ(gpu->provider.slots_per_instance(), 4);
  EXPECT_EQ(gpu->provider.master_url.alias, host_alias::local_ipv4);
  EXPECT_TRUE(gpu->scheduler.preemption); // inherited from resource_manager
  const auto* cpu = cfg->find_pool("cpu-pool");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->provider.slots_per_instance(), 1); // cpu_slots_allowed
  EXPECT_EQ(cfg->checkpoint_storage.type, "s3");
}

TEST(master_config,
     seed_layout_with_top_level_provisioner_becomes_the_default_pool) {
  auto cfg = load_master_config(DET_TEST_DATA_DIR
                                "/conf/master-seed-provisioner.yaml");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  ASSERT_EQ(cfg->resource_pools.size(), 1u);
  const auto& p = cfg->resource_pools[0];
  EXPECT_EQ(p.pool_name, "default");
  EXPECT_EQ(p.provider.type, provider_type::aws);
  EXPECT_EQ(p.provider.aws.tag_key, "determined-alice");
  EXPECT_EQ(p.provider.slots_per_instance(), 8);
  EXPECT_EQ(p.provider.max_idle_agent_period, 10min);
  // The effective tree uses the canonical names.
  const auto& prov = cfg->effective["resource_pools"][0]["provider"];
  EXPECT_EQ(prov["type"], "aws");
  EXPECT_FALSE(prov.contains("provider"));
}

TEST(master_config, heartbeats_are_configurable) {
  auto cfg = parse_master_config(
      "agent_heartbeat_interval: 500ms\nagent_missed_heartbeats: 4\n");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->agent_heartbeat_interval, 500ms);
  EXPECT_EQ(cfg->agent_missed_heartbeats, 4);
}

TEST(master_config, empty_file_gives_working_defaults) {
  auto cfg = parse_master_config("");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->port, 8080);
  EXPECT_EQ(cfg->db.host, "localhost");
  EXPECT_EQ(cfg->db.port, 5432);
  EXPECT_EQ(cfg->db.name, "determined");
  EXPECT_EQ(cfg->agent_reconnect_wait, 25s);
  EXPECT_EQ(cfg->agent_heartbeat_interval, 10s);
  EXPECT_EQ(cfg->agent_missed_heartbeats, 3);
  EXPECT_EQ(cfg->checkpoint_storage.type, "shared_fs");
  EXPECT_EQ(cfg->checkpoint_storage.host_path, "/tmp");
  EXPECT_EQ(cfg->scheduler.type, "priority");
  EXPECT_EQ(cfg->scheduler.default_priority, 42);
  EXPECT_FALSE(cfg->scheduler.preemption);
  EXPECT_EQ(cfg->log.level, "info");
  ASSERT_EQ(cfg->resource_pools.size(), 1u);
  EXPECT_EQ(cfg->resource_pools[0].pool_name, "default");
  EXPECT_EQ(cfg->resource_pools[0].provider.type, provider_type::none);
  EXPECT_EQ(cfg->effective["resource_pools"][0]["max_aux_containers_per_agent"],
            100);
  EXPECT_EQ(cfg->effective["port"], 8080);
}

TEST(master_config, tls_moves_the_default_port_to_8443) {
  auto cfg = parse_master_config(
      "security:\n  tls:\n    cert: /c.pem\n    key: /k.pem\n");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_TRUE(cfg->tls.enabled());
  EXPECT_EQ(cfg->port, 8443);
}

TEST(master_config, db_fields_build_a_connection_url) {
  auto cfg = parse_master_config(
      "db: {host: h, port: 5433, user: u, password: 'p@ss', name: d}");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->db.connection_url(),
            "postgresql://u:p%40ss@h:5433/d?sslmode=disable");
  auto by_url = parse_master_config("db: {url: 'postgresql://x@y/z'}");
  ASSERT_TRUE(by_url) << det::render(by_url.error());
  EXPECT_EQ(by_url->db.connection_url(), "postgresql://x@y/z");
}

TEST(master_config, pool_scheduler_overrides_the_cluster_scheduler) {
  auto cfg = parse_master_config(R"(
scheduler: {type: priority, default_priority: 30}
resource_pools:
  - pool_name: a
  - pool_name: b
    scheduler: {type: fair_share}
default_compute_resource_pool: a
default_aux_resource_pool: b
)");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->find_pool("a")->scheduler.type, "priority");
  EXPECT_EQ(cfg->find_pool("a")->scheduler.default_priority, 30);
  EXPECT_EQ(cfg->find_pool("b")->scheduler.type, "fair_share");
  EXPECT_TRUE(cfg->find_pool("b")->scheduler.preemption);
  EXPECT_EQ(cfg->find_pool("b")->scheduler.default_priority, 30);
  EXPECT_EQ(cfg->default_aux_resource_pool, "b");
}

class master_config_errors
    : public testing::TestWithParam<det::test::error_case> {};

TEST_P(master_config_errors, error_names_the_field_path) {
  const auto& c = GetParam();
  auto err = det::test::master_error_of(c.yaml);
  EXPECT_NE(err.find(c.want), std::string::npos)
      << "want: " << c.want << "\ngot:  " << err;
}

const det::test::error_case master_errors[] = {
    {"integer_given_text",
     "resource_pools:\n  - pool_name: a\n  - pool_name: b\n    provider:\n"
     "      type: local\n      max_instances: ten\n",
     "resource_pools[1].provider.max_instances: expected an integer, got "
     "\"ten\""},
    {"unknown_top_level_field", "prot: 8080\n",
     "unknown field 'prot' (did you mean 'port'?)"},
    {"unknown_pool_field",
     "resource_pools:\n  - pool_name: a\n    descripton: x\n",
     "resource_pools[0]: unknown field 'descripton' (did you mean "
     "'description'?)"},
    {"port_out_of_range", "port: 70000\n", "port: must be between 1 and 65535"},
    {"bad_yaml", "port: [1, 2\n", "not valid yaml"},
    {"port_wrong_type", "port: eighty\n",
     "port: expected an integer, got \"eighty\""},
    {"db_url_with_host", "db: {url: 'postgres://a/b', host: x}\n",
     "db.host: not allowed together with db.url"},
    {"missing_pool_name", "resource_pools:\n  - description: x\n",
     "resource_pools[0].pool_name: required"},
    {"duplicate_pool", "resource_pools:\n  - pool_name: a\n  - pool_name: a\n",
     "resource_pools[1].pool_name: duplicate pool name \"a\""},
    {"unknown_default_pool",
     "resource_pools:\n  - pool_name: a\ndefault_compute_resource_pool: "
     "default\n",
     "resource_manager.default_compute_resource_pool: no resource pool named "
     "\"default\""},
    {"scheduler_type_typo", "scheduler: {type: priorty}\n",
     "resource_manager.scheduler.type: expected one of 'priority', "
     "'fair_share', "
     "got \"priorty\" (did you mean 'priority'?)"},
    {"round_robin_removed", "scheduler: {type: round_robin}\n",
     "round_robin scheduler is not supported"},
    {"priority_out_of_range", "scheduler: {default_priority: 100}\n",
     "resource_manager.scheduler.default_priority: must be between 1 and 99, "
     "got 100"},
    {"tls_cert_without_key", "security: {tls: {cert: /c.pem}}\n",
     "security.tls: cert and key go together"},
    {"provisioner_and_pools",
     "provisioner: {type: local}\nresource_pools: [{pool_name: default}]\n",
     "provisioner: not allowed together with resource_pools"},
    {"log_level", "log: {level: loud}\n", "log.level: expected one of"},
    {"bad_duration", "agent_reconnect_wait: soon\n",
     "agent_reconnect_wait: expected a duration such as \"5m\", \"30s\" or "
     "\"1h\", got \"soon\""},
    {"zero_heartbeat_interval", "agent_heartbeat_interval: 0s\n",
     "agent_heartbeat_interval: must be a positive duration"},
    {"no_missed_heartbeats", "agent_missed_heartbeats: 0\n",
     "agent_missed_heartbeats: must be between 1 and 1000, got 0"},
    {"shared_fs_relative_host_path",
     "checkpoint_storage: {type: shared_fs, host_path: tmp}\n",
     "checkpoint_storage.host_path: must be an absolute path"},
    {"s3_without_bucket", "checkpoint_storage: {type: s3}\n",
     "checkpoint_storage.bucket: required for s3 checkpoint storage"},
    {"storage_field_of_other_type",
     "checkpoint_storage: {type: shared_fs, host_path: /t, bucket: b}\n",
     "checkpoint_storage: unknown field 'bucket'"},
    {"top_level_not_a_map", "- a\n- b\n", "expected a mapping at the top"},
};

INSTANTIATE_TEST_SUITE_P(table, master_config_errors,
                         testing::ValuesIn(master_errors), [](const auto& p) {
                           return std::string{p.param.name};
                         });

TEST(master_config, every_error_in_a_file_is_reported_at_once) {
  auto err = det::test::master_error_of(
      "prot: 1\nlog: {level: loud}\ndb: {port: x}\n");
  EXPECT_NE(err.find("prot"), std::string::npos) << err;
  EXPECT_NE(err.find("log.level"), std::string::npos) << err;
  EXPECT_NE(err.find("db.port"), std::string::npos) << err;
}

TEST(master_config, load_prefixes_errors_with_the_file_path) {
  auto cfg = load_master_config("/nonexistent/master.yaml");
  ASSERT_FALSE(cfg);
  EXPECT_EQ(det::code_of(cfg.error()), det::errc::not_found);
}

TEST(master_config, upstream_fields_det_master_ignores_are_accepted) {
  auto cfg = parse_master_config(
      "telemetry: {enabled: false}\ntask_container_defaults: {shm_size_bytes: "
      "1}\n"
      "resource_pools:\n  - pool_name: default\n    agent_reattach_enabled: "
      "true\n");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
}

} // namespace

namespace {

TEST(master_config, unnamed_default_pools_fall_back_to_the_first_pool) {
  auto cfg = parse_master_config(
      "resource_pools:\n  - pool_name: gpu\n  - pool_name: cpu\n");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->default_compute_resource_pool, "gpu");
  EXPECT_EQ(cfg->default_aux_resource_pool, "gpu");
  EXPECT_EQ(cfg->effective["resource_manager"]["default_aux_resource_pool"],
            "gpu");
}

} // namespace

TEST(master_config,
     the_model_definition_limit_defaults_to_95_mib_and_is_checked) {
  auto d = parse_master_config("{}");
  ASSERT_TRUE(d) << det::render(d.error());
  EXPECT_EQ(d->max_model_definition_bytes, 95LL << 20);
  auto set = parse_master_config("max_model_definition_bytes: 1000\n");
  ASSERT_TRUE(set) << det::render(set.error());
  EXPECT_EQ(set->max_model_definition_bytes, 1000);
  auto bad = parse_master_config("max_model_definition_bytes: 0\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(det::render(bad.error()).find("max_model_definition_bytes"),
            std::string::npos);
}
