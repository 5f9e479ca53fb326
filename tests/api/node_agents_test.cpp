// A Kubernetes node as a v1Agent (api/node_agents.hpp): its slots, the
// containers of our pods on it, its pools. Pure: a state built by hand.

#include "api/node_agents.hpp"

#include <gtest/gtest.h>

using namespace det;
using json = nlohmann::json;

namespace {

state::cluster_state with_running_allocation() {
  state::cluster_state s;
  state::trial_info t;
  t.id = 7;
  t.status = state::trial_status::running;
  state::allocation_info a;
  a.id = "7.1";
  t.allocation = a;
  s.trials[7] = t;
  s.allocations["7.1"] = 7;
  return s;
}

} // namespace

TEST(node_agent_json, a_pod_of_ours_fills_as_many_slots_as_it_asked_for) {
  api::node_agent_info n;
  n.id = "gpu-node-1";
  n.pools = {"default", "ml"};
  n.slots = 4;
  n.slot_type = "cuda";
  n.addresses = {"10.0.0.5"};
  n.pods = {{"7.1", 3}};
  auto j = api::node_agent_json(with_running_allocation(), n);
  EXPECT_EQ(j["id"], "gpu-node-1");
  EXPECT_EQ(j["resourcePools"], json({"default", "ml"}));
  EXPECT_EQ(j["addresses"], json({"10.0.0.5"}));
  ASSERT_EQ(j["slots"].size(), 4u);
  EXPECT_EQ(j["slots"]["0"]["container"]["id"], "7.1");
  EXPECT_EQ(j["slots"]["0"]["container"]["state"], "STATE_RUNNING");
  EXPECT_EQ(j["slots"]["2"]["container"]["id"], "7.1");
  // A free slot, as upstream shows it: "container": null.
  ASSERT_TRUE(j["slots"]["3"].contains("container"));
  EXPECT_TRUE(j["slots"]["3"]["container"].is_null());
  EXPECT_EQ(j["slots"]["0"]["device"]["type"], "TYPE_CUDA");
  EXPECT_EQ(j["containers"].size(), 1u);
  EXPECT_EQ(j["enabled"], true);
}

TEST(node_agent_json, a_disabled_node_with_more_pods_than_slots_stays_bounded) {
  api::node_agent_info n;
  n.id = "n";
  n.slots = 1;
  n.enabled = false;
  n.pods = {{"7.1", 8}, {"x.1", 2}};
  auto j = api::node_agent_json(with_running_allocation(), n);
  ASSERT_EQ(j["slots"].size(), 1u);
  EXPECT_EQ(j["enabled"], false);
  EXPECT_EQ(j["slots"]["0"]["enabled"], false);
  EXPECT_EQ(j["resourcePools"], json::array());
}
