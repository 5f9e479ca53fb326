#include "k8s/cluster_view.hpp"

#include "k8s/job_spec.hpp"

#include <gtest/gtest.h>

using namespace det::k8s;
using nlohmann::json;

TEST(parse_quantity, reads_plain_milli_and_binary_suffixes) {
  EXPECT_DOUBLE_EQ(*parse_quantity("4"), 4);
  EXPECT_DOUBLE_EQ(*parse_quantity("3500m"), 3.5);
  EXPECT_DOUBLE_EQ(*parse_quantity("2Ki"), 2048);
  EXPECT_FALSE(parse_quantity("lots"));
  EXPECT_FALSE(parse_quantity("4 cores"));
  EXPECT_FALSE(parse_quantity(""));
}

TEST(node_as_agent, gpu_slots_are_allocatable_gpus_cpu_slots_divide) {
  json node = {{"metadata", {{"name", "n1"}}},
               {"status",
                {{"allocatable", {{"nvidia.com/gpu", "8"}, {"cpu", "31500m"}}},
                 {"conditions",
                  json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
  auto g = node_as_agent(node, "gpu", 1);
  EXPECT_EQ(g.name, "n1");
  EXPECT_EQ(g.slots, 8);
  EXPECT_TRUE(g.ready);
  EXPECT_TRUE(g.schedulable);
  EXPECT_EQ(node_as_agent(node, "cpu", 2).slots, 15);
  node["metadata"]["labels"][disabled_node_label] = "true";
  auto d = node_as_agent(node, "gpu", 1);
  EXPECT_TRUE(d.disabled);
  EXPECT_FALSE(d.schedulable);
}

TEST(node_as_agent, odd_nodes_read_as_zero_slots_not_ready) {
  auto a = node_as_agent(
      json{{"status", {{"allocatable", {{"nvidia.com/gpu", 7.5}}}}}}, "gpu", 1);
  EXPECT_EQ(a.slots, 7);
  auto b = node_as_agent(json::array(), "gpu", 1);
  EXPECT_EQ(b.slots, 0);
  EXPECT_FALSE(b.ready);
}

TEST(tolerates, a_pool_sees_tainted_nodes_only_with_a_matching_toleration) {
  json tainted = {{"spec",
                   {{"taints", json::array({{{"key", "det-bed/dedicated"},
                                             {"value", "special"},
                                             {"effect", "NoSchedule"}}})}}}};
  json plain = json::object();
  EXPECT_TRUE(tolerates(json::array(), plain));
  EXPECT_FALSE(tolerates(json::array(), tainted));
  EXPECT_TRUE(tolerates(json::array({{{"key", "det-bed/dedicated"},
                                      {"operator", "Equal"},
                                      {"value", "special"}}}),
                        tainted));
  EXPECT_FALSE(tolerates(
      json::array({{{"key", "det-bed/dedicated"}, {"value", "other"}}}),
      tainted));
  EXPECT_TRUE(tolerates(json::array({{{"operator", "Exists"}}}), tainted));
}

TEST(read_pod, maps_phases_to_task_states_with_exit_codes) {
  json pending = {
      {"status",
       {{"phase", "Pending"},
        {"conditions",
         json::array({{{"type", "PodScheduled"},
                       {"status", "False"},
                       {"message", "0/3 nodes are available: 3 "
                                   "Insufficient nvidia.com/gpu."}}})}}}};
  auto p = read_pod(pending);
  EXPECT_EQ(p.state, pod_state::assigned);
  EXPECT_NE(p.reason.find("Insufficient nvidia.com/gpu"), std::string::npos);

  json starting = {{"spec", {{"nodeName", "n1"}}},
                   {"status", {{"phase", "Pending"}}}};
  EXPECT_EQ(read_pod(starting).state, pod_state::starting);

  json running = {
      {"spec", {{"nodeName", "n1"}}},
      {"status",
       {{"phase", "Running"},
        {"containerStatuses",
         json::array({{{"state", {{"running", json::object()}}}}})}}}};
  EXPECT_EQ(read_pod(running).state, pod_state::running);

  json exited = running;
  exited["status"]["containerStatuses"][0]["state"] = {
      {"terminated", {{"exitCode", 3}, {"reason", "Error"}}}};
  auto e = read_pod(exited);
  EXPECT_EQ(e.state, pod_state::terminated);
  EXPECT_EQ(e.exit_code, 3);
  EXPECT_EQ(e.reason, "Error");

  json unstarted = running;
  unstarted["status"]["containerStatuses"][0]["state"] = {
      {"terminated",
       {{"exitCode", 128},
        {"reason", "StartError"},
        {"message",
         "exec: \"/no/such\": no such file " + std::string(2000, 'x')}}}};
  auto u = read_pod(unstarted);
  EXPECT_EQ(u.reason, "StartError");
  EXPECT_EQ(u.message.rfind("exec: \"/no/such\"", 0), 0u) << u.message;
  EXPECT_EQ(u.message.size(), 1024u);
  // A field of the wrong type reads as absent, not as an exception.
  unstarted["status"]["containerStatuses"][0]["state"]["terminated"]
           ["message"] = 7;
  unstarted["status"]["containerStatuses"][0]["state"]["terminated"]["reason"] =
      json::array();
  EXPECT_EQ(read_pod(unstarted).message, "");
  EXPECT_EQ(read_pod(unstarted).reason, "");

  json evicted = {{"status", {{"phase", "Failed"}, {"reason", "Evicted"}}}};
  EXPECT_EQ(read_pod(evicted).exit_code, 137);

  json backoff = starting;
  backoff["status"]["containerStatuses"] = json::array(
      {{{"state", {{"waiting", {{"reason", "ImagePullBackOff"}}}}}}});
  EXPECT_TRUE(read_pod(backoff).fatal_wait);
}

TEST(job_outcome, reads_complete_and_failed_conditions) {
  EXPECT_EQ(job_outcome(json::object()), "");
  EXPECT_EQ(
      job_outcome({{"status",
                    {{"conditions", json::array({{{"type", "Failed"},
                                                  {"status", "True"}}})}}}}),
      "Failed");
}

TEST(read_event, copies_scheduler_messages_about_pods) {
  auto m = read_event({{"involvedObject", {{"kind", "Pod"}, {"name", "p1"}}},
                       {"reason", "FailedScheduling"},
                       {"type", "Warning"},
                       {"message", "0/3 nodes are available"}});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->pod, "p1");
  EXPECT_EQ(m->text, "FailedScheduling: 0/3 nodes are available");
  EXPECT_TRUE(m->warning);
  EXPECT_FALSE(read_event({{"involvedObject", {{"kind", "Node"}}}}));
}

TEST(leftovers, only_this_clusters_unknown_allocations_are_chosen) {
  auto obj = [](const char* name, json labels) {
    return json{{"metadata", {{"name", name}, {"labels", labels}}}};
  };
  std::vector<json> objs = {
      obj("known", {{cluster_label, "c1"}, {allocation_label, "1.1"}}),
      obj("stale", {{cluster_label, "c1"}, {allocation_label, "2.1"}}),
      obj("other-cluster", {{cluster_label, "c2"}, {allocation_label, "9.1"}}),
      obj("unlabelled", json::object()),
      obj("no-alloc", {{cluster_label, "c1"}})};
  auto l = leftovers(objs, "c1", {"1.1"});
  EXPECT_EQ(l, (std::vector<std::string>{"stale", "no-alloc"}));
  EXPECT_TRUE(leftovers(objs, "", {}).empty());
}

TEST(pod_rank, reads_the_completion_index_and_refuses_nonsense) {
  json pod = {
      {"metadata",
       {{"annotations", {{"batch.kubernetes.io/job-completion-index", "3"}}},
        {"labels", {{"determined.ai/num_pods", "4"}}}}}};
  EXPECT_EQ(pod_rank(pod, 9), 3);
  EXPECT_EQ(pods_of(pod), 4);
  for (const char* bad : {"", "-1", "x", "99999", " 1"}) {
    pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] =
        bad;
    pod["metadata"]["labels"]["determined.ai/num_pods"] = bad;
    EXPECT_EQ(pod_rank(pod, 9), 9) << bad;
    EXPECT_EQ(pods_of(pod), 1) << bad;
  }
  EXPECT_EQ(pods_of(json::array()), 1);
  EXPECT_EQ(pod_rank(json("pod"), 0), 0);
}

TEST(gone_pods, pods_deleted_while_the_watch_was_away_are_found_on_relist) {
  std::map<std::string, std::map<std::string, pod_status>> known;
  known["1.1"]["p-a"].state = pod_state::running;
  known["1.1"]["p-b"].state = pod_state::running;
  known["2.1"]["p-c"].state = pod_state::terminated; // its end was seen
  known["3.1"]["p-d"].state = pod_state::assigned;
  std::vector<json> listed = {{{"metadata", {{"name", "p-a"}}}},
                              {{"metadata", {{"name", "p-new"}}}},
                              json("not a pod")};
  auto gone = gone_pods(known, listed);
  ASSERT_EQ(gone.size(), 2u);
  EXPECT_EQ(gone[0], std::make_pair(std::string{"1.1"}, std::string{"p-b"}));
  EXPECT_EQ(gone[1], std::make_pair(std::string{"3.1"}, std::string{"p-d"}));
  EXPECT_TRUE(gone_pods({}, listed).empty());
}
