#include "k8s/job_spec.hpp"

#include <gtest/gtest.h>

#include <map>

#include <regex>

using namespace det::k8s;
using nlohmann::json;

namespace {

job_request trial_request(int64_t slots) {
  job_request r;
  r.allocation_id = "7.1";
  r.trial_id = 7;
  r.experiment_id = 3;
  r.user = "alice";
  r.slots = slots;
  r.priority = 42;
  r.image = "determinedai/environments:cuda";
  r.command = {"det-trial-runner"};
  r.env = {{"DET_MASTER", "http://det:8080"}};
  r.files = {{"run.json", "{}"}};
  return r;
}

const json& container(const job_objects& o) {
  return o.job["spec"]["template"]["spec"]["containers"][0];
}

} // namespace

TEST(num_pods, is_one_up_to_max_slots_per_pod_then_divides) {
  EXPECT_EQ(*num_pods(0, 8), 1);
  EXPECT_EQ(*num_pods(8, 8), 1);
  EXPECT_EQ(*num_pods(16, 8), 2);
  EXPECT_EQ(*num_pods(32, 4), 8);
}

TEST(num_pods, refuses_a_slot_count_that_does_not_divide_naming_the_field) {
  auto n = num_pods(12, 8);
  ASSERT_FALSE(n);
  EXPECT_NE(det::render(n.error()).find("slots_per_trial"), std::string::npos);
  EXPECT_FALSE(num_pods(4, 0));
}

TEST(render_job, a_multi_pod_gpu_trial_runs_num_pods_pods_of_equal_gpus) {
  job_settings s;
  s.cluster_id = "c1";
  s.max_slots_per_pod = 4;
  auto o = render_job(s, trial_request(8));
  ASSERT_TRUE(o) << det::render(o.error());
  EXPECT_EQ(o->num_pods, 2);
  const auto& spec = o->job["spec"];
  EXPECT_EQ(spec["parallelism"], 2);
  EXPECT_EQ(spec["completions"], 2);
  // Each pod learns its rank from the Indexed Job's completion index.
  EXPECT_EQ(spec["completionMode"], "Indexed");
  EXPECT_EQ(spec["template"]["metadata"]["labels"]["determined.ai/num_pods"],
            "2");
  std::map<std::string, json> env;
  for (const auto& e : container(*o)["env"])
    env[e["name"].get<std::string>()] = e;
  EXPECT_EQ(env["DET_NUM_PODS"]["value"], "2");
  EXPECT_EQ(env["DET_POD_RANK"]["valueFrom"]["fieldRef"]["fieldPath"],
            "metadata.annotations['batch.kubernetes.io/job-completion-index']");
  EXPECT_EQ(spec["backoffLimit"], 0);
  EXPECT_EQ(spec["ttlSecondsAfterFinished"], 900);
  EXPECT_EQ(spec["template"]["spec"]["restartPolicy"], "Never");
  EXPECT_EQ(container(*o)["name"], "determined-container");
  EXPECT_EQ(container(*o)["resources"]["requests"]["nvidia.com/gpu"], 4);
  EXPECT_EQ(container(*o)["resources"]["limits"]["nvidia.com/gpu"], 4);
  EXPECT_EQ(spec["template"]["spec"]["priorityClassName"],
            "determined-priority-42");
  const auto& labels = o->job["metadata"]["labels"];
  EXPECT_EQ(labels["determined.ai/cluster"], "c1");
  EXPECT_EQ(labels["determined.ai/allocation_id"], "7.1");
  EXPECT_EQ(labels["determined.ai/trial_id"], "7");
  EXPECT_EQ(labels["determined.ai/experiment_id"], "3");
  EXPECT_EQ(labels["determined.ai/user"], "alice");
  EXPECT_EQ(o->config_map["metadata"]["name"], o->job["metadata"]["name"]);
  EXPECT_EQ(o->config_map["data"]["run.json"], "{}");
  EXPECT_EQ(o->config_map["metadata"]["labels"], labels);
}

TEST(render_job, cpu_slots_request_millicores_and_zero_slots_request_nothing) {
  job_settings s;
  s.cluster_id = "c1";
  s.slot_type = "cpu";
  s.cpu_per_slot = 0.5;
  auto o = render_job(s, trial_request(3));
  ASSERT_TRUE(o);
  EXPECT_EQ(container(*o)["resources"]["requests"]["cpu"], "1500m");
  auto zero = render_job(s, trial_request(0));
  ASSERT_TRUE(zero);
  EXPECT_TRUE(container(*zero)["resources"].empty());
}

TEST(render_job, a_task_is_labelled_with_its_type_and_id_and_a_trial_as_trial) {
  job_settings s;
  s.cluster_id = "c1";
  auto trial = render_job(s, trial_request(1));
  ASSERT_TRUE(trial);
  EXPECT_EQ(trial->job["metadata"]["labels"]["determined.ai/task_type"],
            "TRIAL");
  EXPECT_FALSE(
      trial->job["metadata"]["labels"].contains("determined.ai/task_id"));
  auto r = trial_request(0);
  r.trial_id = 0;
  r.experiment_id = 0;
  r.allocation_id = "0f3c2a8e-1b2d-4c5e-9f00-a1b2c3d4e5f6.1";
  r.task_id = "0f3c2a8e-1b2d-4c5e-9f00-a1b2c3d4e5f6";
  r.task_type = "NOTEBOOK";
  auto task = render_job(s, r);
  ASSERT_TRUE(task);
  const auto& labels = task->job["metadata"]["labels"];
  EXPECT_EQ(labels["determined.ai/task_type"], "NOTEBOOK");
  EXPECT_EQ(labels["determined.ai/task_id"], r.task_id);
  EXPECT_EQ(labels["determined.ai/trial_id"], "0");
  // The pods carry them too (the runner finds a task's pods by them).
  EXPECT_EQ(task->job["spec"]["template"]["metadata"]["labels"]
                     ["determined.ai/task_id"],
            r.task_id);
  // A TensorBoard's zero slots ask for nothing.
  EXPECT_TRUE(container(*task)["resources"].empty());
}

TEST(render_job, coscheduler_sets_scheduler_name_and_pod_group_labels) {
  job_settings s;
  s.cluster_id = "c1";
  s.max_slots_per_pod = 2;
  s.default_scheduler = "coscheduler";
  auto o = render_job(s, trial_request(4));
  ASSERT_TRUE(o);
  const auto& t = o->job["spec"]["template"];
  EXPECT_EQ(t["spec"]["schedulerName"], "coscheduler");
  EXPECT_EQ(t["metadata"]["labels"]["pod-group.scheduling.sigs.k8s.io/name"],
            o->job["metadata"]["name"]);
  EXPECT_EQ(
      t["metadata"]["labels"]["pod-group.scheduling.sigs.k8s.io/min-available"],
      "2");
}

TEST(render_job, user_pod_spec_wins_over_pool_spec_merged_by_container_name) {
  job_settings s;
  s.cluster_id = "c1";
  s.tolerations = json::array({{{"key", "gpu"}, {"operator", "Exists"}}});
  s.node_selector = {{"pool", "a100"}};
  s.pool_pod_spec = {
      {"metadata", {{"labels", {{"team", "ml"}}}}},
      {"spec",
       {{"containers",
         json::array(
             {{{"name", "determined-container"},
               {"env", json::array({{{"name", "A"}, {"value", "pool"}}})}},
              {{"name", "sidecar"}, {"image", "busybox"}}})}}}};
  auto r = trial_request(1);
  r.user_pod_spec = {
      {"spec",
       {{"containers",
         json::array(
             {{{"name", "determined-container"},
               {"env", json::array({{{"name", "A"}, {"value", "user"}}})}}})},
        {"restartPolicy", "Always"}}}};
  auto o = render_job(s, r);
  ASSERT_TRUE(o);
  const auto& t = o->job["spec"]["template"];
  const auto& cs = t["spec"]["containers"];
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0]["image"], r.image); // ours kept
  json a;
  for (const auto& e : cs[0]["env"])
    if (e["name"] == "A")
      a = e;
  EXPECT_EQ(a["value"], "user");
  EXPECT_EQ(cs[1]["name"], "sidecar");
  EXPECT_EQ(t["spec"]["restartPolicy"], "Never"); // not overridable
  EXPECT_EQ(t["spec"]["nodeSelector"]["pool"], "a100");
  EXPECT_EQ(t["spec"]["tolerations"][0]["key"], "gpu");
  EXPECT_EQ(t["metadata"]["labels"]["team"], "ml");
  EXPECT_EQ(t["metadata"]["labels"]["determined.ai/cluster"], "c1");
}

TEST(render_job, keeps_pods_off_disabled_nodes) {
  job_settings s;
  s.cluster_id = "c1";
  auto o = render_job(s, trial_request(1));
  ASSERT_TRUE(o);
  auto expr = o->job["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]
                    ["requiredDuringSchedulingIgnoredDuringExecution"]
                    ["nodeSelectorTerms"][0]["matchExpressions"][0];
  EXPECT_EQ(expr["key"], disabled_node_label);
  EXPECT_EQ(expr["operator"], "DoesNotExist");
}

TEST(render_job, refuses_an_empty_command_or_image) {
  job_settings s;
  auto r = trial_request(1);
  r.command.clear();
  EXPECT_FALSE(render_job(s, r));
  r = trial_request(1);
  r.image.clear();
  EXPECT_FALSE(render_job(s, r));
}

TEST(names, job_names_are_dns_labels_unique_per_cluster_and_allocation) {
  std::regex dns("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  auto a = job_name("c1", "7.1");
  auto b = job_name("c2", "7.1");
  auto long_one = job_name("c1", std::string(200, 'X') + ".1");
  EXPECT_NE(a, b);
  EXPECT_TRUE(std::regex_match(a, dns)) << a;
  EXPECT_TRUE(std::regex_match(long_one, dns)) << long_one;
  EXPECT_LE(long_one.size(), 63u);
}

TEST(names, label_values_are_valid_and_lossy_ones_stay_distinct) {
  std::regex ok("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");
  EXPECT_EQ(label_value("alice"), "alice");
  auto x = label_value("bob@example.com");
  auto y = label_value("bob#example.com");
  EXPECT_NE(x, y);
  EXPECT_TRUE(std::regex_match(x, ok)) << x;
  auto l = label_value(std::string(100, 'a'));
  EXPECT_LE(l.size(), 63u);
  EXPECT_TRUE(std::regex_match(label_value("-_-"), ok));
}

TEST(priority_class, higher_determined_priority_is_a_higher_value) {
  EXPECT_GT(priority_class(1)["value"].get<int>(),
            priority_class(50)["value"].get<int>());
  EXPECT_EQ(priority_class(50)["metadata"]["name"], "determined-priority-50");
}
