// The node side of the kubernetes resource manager as pure code: which
// pools a node serves, each pool's capacity, and the coalescing of node
// changes into few capacity events.

#include "k8s/node_capacity.hpp"

#include "k8s/job_spec.hpp"

#include <gtest/gtest.h>

using namespace det::k8s;
using nlohmann::json;

namespace {

json node(const std::string& name, int gpus, bool ready = true) {
  return {{"metadata", {{"name", name}, {"labels", json::object()}}},
          {"spec", json::object()},
          {"status",
           {{"allocatable",
             {{"nvidia.com/gpu", std::to_string(gpus)}, {"cpu", "8"}}},
            {"conditions",
             json::array({{{"type", "Ready"},
                           {"status", ready ? "True" : "False"}}})}}}};
}

json tainted(json n) {
  n["spec"]["taints"] = json::array(
      {{{"key", "dedicated"}, {"value", "ml"}, {"effect", "NoSchedule"}}});
  return n;
}

std::vector<pool_placement> two_pools() {
  return {placement_of("default", json::object()),
          placement_of(
              "ml", {{"spec",
                      {{"tolerations", json::array({{{"key", "dedicated"},
                                                     {"operator", "Equal"},
                                                     {"value", "ml"}}})}}}})};
}

using clk = capacity_coalescer::clock;

} // namespace

TEST(pool_capacities, sum_ready_schedulable_enabled_nodes_each_pool_may_use) {
  node_table t;
  auto cordoned = node("cordoned", 8);
  cordoned["spec"]["unschedulable"] = true;
  auto disabled = node("disabled", 8);
  disabled["metadata"]["labels"][disabled_node_label] = "true";
  t.sync({node("a", 4), node("b", 2), tainted(node("t", 8)),
          node("down", 8, false), cordoned, disabled});
  auto c = pool_capacities(t, two_pools(), "gpu", 1);
  EXPECT_EQ(c.at("default"), 6); // a + b; not the tainted node
  EXPECT_EQ(c.at("ml"), 14);     // tolerates the taint: a + b + t
  EXPECT_EQ(pool_capacities(t, two_pools(), "cpu", 2).at("default"), 8);
}

TEST(pool_capacities, every_pool_is_answered_even_with_no_node) {
  node_table t;
  auto c = pool_capacities(t, two_pools(), "gpu", 1);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(c.at("ml"), 0);
}

TEST(pools_of_node, taints_and_node_selectors_decide) {
  auto pools = two_pools();
  pools.push_back(placement_of("a100", {{"nodeSelector", {{"gpu", "a100"}}}}));
  auto n = node("n", 8);
  EXPECT_EQ(pools_of_node(pools, n),
            (std::vector<std::string>{"default", "ml"}));
  n["metadata"]["labels"]["gpu"] = "a100";
  EXPECT_EQ(pools_of_node(pools, n),
            (std::vector<std::string>{"default", "ml", "a100"}));
  EXPECT_EQ(pools_of_node(pools, tainted(n)), (std::vector<std::string>{"ml"}));
}

TEST(placement_of, odd_pod_specs_read_as_no_constraint) {
  auto p = placement_of(
      "x",
      {{"spec", {{"tolerations", "all"}, {"nodeSelector", json::array()}}}});
  EXPECT_TRUE(p.tolerations.empty());
  EXPECT_TRUE(p.node_selector.empty());
  EXPECT_TRUE(pool_may_use(placement_of("y", 42), node("n", 1)));
}

TEST(node_table, watch_events_add_change_and_remove_nodes) {
  node_table t;
  t.sync({node("a", 1)});
  t.apply("ADDED", node("b", 2));
  t.apply("MODIFIED", node("a", 3));
  t.apply("BOOKMARK", node("c", 1));
  t.apply("ADDED", json{{"metadata", json::object()}}); // no name: ignored
  ASSERT_EQ(t.nodes().size(), 2u);
  EXPECT_EQ(pool_capacities(t, two_pools(), "gpu", 1).at("default"), 5);
  t.apply("DELETED", node("a", 3));
  EXPECT_EQ(t.find("a"), nullptr);
  t.sync({});
  EXPECT_TRUE(t.nodes().empty());
}

TEST(capacity_coalescer, a_burst_of_changes_writes_once_after_it_settles) {
  capacity_coalescer c{std::chrono::milliseconds{1000}};
  auto t0 = clk::time_point{} + std::chrono::hours{1};
  c.written("default", 8);
  c.observe("default", 12, t0);
  c.observe("default", 16, t0 + std::chrono::milliseconds{300});
  c.observe("default", 20, t0 + std::chrono::milliseconds{600});
  EXPECT_TRUE(c.due(t0 + std::chrono::milliseconds{900}).empty());
  auto due = c.due(t0 + std::chrono::milliseconds{1000});
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due.at("default"), 20);
  c.written("default", 20);
  EXPECT_TRUE(c.due(t0 + std::chrono::seconds{5}).empty());
}

TEST(capacity_coalescer, a_node_that_flaps_back_writes_nothing) {
  capacity_coalescer c{std::chrono::milliseconds{1000}};
  auto t0 = clk::time_point{} + std::chrono::hours{1};
  c.written("default", 8);
  for (int i = 0; i < 10; ++i) {
    c.observe("default", 4, t0 + std::chrono::milliseconds{50 * i});
    c.observe("default", 8, t0 + std::chrono::milliseconds{50 * i + 25});
  }
  EXPECT_TRUE(c.due(t0 + std::chrono::seconds{10}).empty());
}

TEST(capacity_coalescer, a_failed_write_is_offered_again_later) {
  capacity_coalescer c{std::chrono::milliseconds{100}};
  auto t0 = clk::time_point{} + std::chrono::hours{1};
  c.written("default", 1);
  c.observe("default", 3, t0);
  EXPECT_EQ(c.due(t0 + std::chrono::milliseconds{100}).at("default"), 3);
  c.retry_later("default", t0 + std::chrono::milliseconds{100});
  EXPECT_TRUE(c.due(t0 + std::chrono::milliseconds{150}).empty());
  EXPECT_EQ(c.due(t0 + std::chrono::milliseconds{200}).at("default"), 3);
}

TEST(capacity_coalescer, a_pool_never_written_is_written_once_observed) {
  capacity_coalescer c{std::chrono::milliseconds{0}};
  auto t0 = clk::time_point{} + std::chrono::hours{1};
  c.observe("gpu", 0, t0);
  EXPECT_EQ(c.due(t0).at("gpu"), 0);
}
