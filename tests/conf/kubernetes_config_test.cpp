#include "conf/master_config.hpp"

#include "conf/reader.hpp"

#include "tests/conf/config_errors.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det::conf;

namespace {} // namespace

TEST(kubernetes_rm, reads_upstreams_keys_and_fills_the_defaults) {
  auto cfg = parse_master_config(R"(
resource_manager:
  type: kubernetes
  namespace: det
  max_slots_per_pod: 4
  slot_type: cpu
  slot_resource_requests: {cpu: 0.5}
  default_scheduler: coscheduler
  kubeconfig_path: /tmp/kubeconfig
  determined_master_host: 127.0.0.1
  determined_master_port: 8081
resource_pools:
  - pool_name: default
    task_container_defaults:
      cpu_pod_spec:
        spec:
          tolerations: [{key: dedicated, operator: Exists}]
)");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->resource_manager_type, "kubernetes");
  const auto& k = cfg->kubernetes;
  EXPECT_EQ(k.default_namespace, "det");
  EXPECT_EQ(k.max_slots_per_pod, 4);
  EXPECT_EQ(k.slot_type, "cpu");
  EXPECT_DOUBLE_EQ(k.cpu_per_slot, 0.5);
  EXPECT_EQ(k.default_scheduler, "coscheduler");
  EXPECT_EQ(k.kubeconfig_path, "/tmp/kubeconfig");
  EXPECT_EQ(k.task_master_url(cfg->port), "http://127.0.0.1:8081");
  ASSERT_EQ(cfg->resource_pools.size(), 1u);
  EXPECT_EQ(cfg->resource_pools[0].pod_spec["spec"]["tolerations"][0]["key"],
            "dedicated");
  const auto& rm = cfg->effective["resource_manager"];
  EXPECT_EQ(rm["default_namespace"], "det");
  EXPECT_EQ(rm["master_service_name"], "determined-master-service");
  EXPECT_FALSE(rm.contains("namespace"));
}

TEST(kubernetes_rm, tasks_reach_the_master_service_by_default) {
  auto cfg = parse_master_config(
      "resource_manager: {type: kubernetes, max_slots_per_pod: 8}\n");
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  EXPECT_EQ(cfg->kubernetes.slot_type, "gpu");
  EXPECT_EQ(cfg->kubernetes.task_master_url(8080),
            "http://determined-master-service.default.svc.cluster.local:8080");
}

TEST(kubernetes_rm, refusals_name_the_field) {
  EXPECT_NE(det::test::master_error_of("resource_manager: {type: kubernetes}")
                .find("resource_manager.max_slots_per_pod: required"),
            std::string::npos);
  EXPECT_NE(det::test::master_error_of(
                "resource_manager: {type: kubernetes, max_slots_per_pod: "
                "1, slot_type: tpu}")
                .find("resource_manager.slot_type"),
            std::string::npos);
  EXPECT_NE(det::test::master_error_of(
                "resource_manager: {type: kubernetes, max_slots_per_pod: "
                "1, slot_resource_requests: {cpu: -1}}")
                .find("resource_manager.slot_resource_requests.cpu"),
            std::string::npos);
  EXPECT_NE(det::test::master_error_of(
                "resource_manager: {type: kubernetes, max_slots_per_pod: "
                "1, default_namespace: Not_A_Name}")
                .find("resource_manager.default_namespace"),
            std::string::npos);
  EXPECT_NE(det::test::master_error_of(
                "resource_manager: {type: kubernetes, max_slots_per_pod: "
                "1, default_scheduler: volcano}")
                .find("resource_manager.default_scheduler"),
            std::string::npos);
  EXPECT_NE(det::test::master_error_of(
                "resource_manager: {type: kubernetes, max_slots_per_pod: "
                "1}\nresource_pools: [{pool_name: a, provider: {type: "
                "local}}]")
                .find("resource_pools[0].provider"),
            std::string::npos);
  EXPECT_NE(det::test::master_error_of(
                "resource_manager: {type: kubernetes, max_slots_per_pod: "
                "1}\nresource_pools: [{pool_name: a, "
                "task_container_defaults: {gpu_pod_spec: 3}}]")
                .find("resource_pools[0].task_container_defaults.gpu_pod_spec"),
            std::string::npos);
}

TEST(kubernetes_rm, kubernetes_keys_are_unknown_to_the_agent_manager) {
  EXPECT_NE(
      det::test::master_error_of("resource_manager: {max_slots_per_pod: 4}")
          .find("max_slots_per_pod"),
      std::string::npos);
}
