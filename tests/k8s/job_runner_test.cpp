// job_runner against the real control plane of the test bed, its pods run
// by the bed's process kubelet (real processes, real exit codes and logs
// served through the API server). Skips without K8S_BED_KUBECONFIG.

#include "k8s/job_runner.hpp"
#include "tests/k8s/bed_client.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>

using namespace det::k8s;
using nlohmann::json;

namespace {

using det::test::bed_client;
using det::test::unique;

/// What the runner reported, awaited with a bounded wait.
struct recorder {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, int> exits;
  /// The log lines there were when each exit came.
  std::map<std::string, std::vector<std::string>> logs_at_exit;
  std::vector<std::string> messages;
  std::vector<std::string> logs;
  std::vector<std::string> states;

  runner_callbacks callbacks() {
    return {
        [this](const std::string& a, const std::string&, pod_state s,
               const std::string& node) {
          note([&] {
            states.push_back(a + " " + std::to_string(int(s)) + " " + node);
          });
        },
        [this](const std::string& a, int code) {
          note([&] {
            exits[a] = code;
            logs_at_exit[a] = logs;
          });
        },
        [this](const std::string& a, const std::string& text) {
          note([&] { messages.push_back(a + ": " + text); });
        },
        [this](const std::string&, int64_t, std::vector<std::string> lines) {
          note([&] {
            for (auto& l : lines)
              logs.push_back(l);
          });
        }};
  }
  template <class F> void note(F f) {
    {
      std::lock_guard<std::mutex> g(mu);
      f();
    }
    cv.notify_all();
  }
  template <class P> bool await(P pred, int seconds = 60) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(seconds), pred);
  }
  bool has_log(const std::string& s) {
    for (const auto& l : logs)
      if (l.find(s) != std::string::npos)
        return true;
    return false;
  }
  bool has_message(const std::string& s) {
    for (const auto& l : messages)
      if (l.find(s) != std::string::npos)
        return true;
    return false;
  }
};

} // namespace

class job_runner_bed : public ::testing::Test {
protected:
  void SetUp() override {
    client_ = bed_client();
    if (!client_)
      GTEST_SKIP() << "K8S_BED_KUBECONFIG unset: no test bed";
    res_ = std::make_unique<resources>(client_);
    ns_ = unique("det-rm-test");
    ASSERT_TRUE(res_->create({"/api/v1", "namespaces", false}, "",
                             {{"metadata", {{"name", ns_}}}}));
    settings_.cluster_id = unique("c");
    settings_.ns = ns_;
    settings_.slot_type = "cpu";
    settings_.cpu_per_slot = 1;
    settings_.max_slots_per_pod = 2;
    // Onto the process kubelet's nodes, where pods really run.
    settings_.node_selector = {{"det-bed", "process"}};
  }
  void TearDown() override {
    runner_.reset();
    if (res_)
      (void)res_->remove({"/api/v1", "namespaces", false}, "", ns_);
  }
  job_request request(const std::string& alloc, int64_t slots,
                      const std::string& script) {
    job_request r;
    r.allocation_id = alloc;
    r.trial_id = 1;
    r.experiment_id = 1;
    r.user = "admin";
    r.slots = slots;
    r.image = "det-task";
    r.command = {"/bin/sh", "-c", script};
    return r;
  }
  void start_runner() {
    runner_ =
        std::make_unique<job_runner>(client_, settings_, rec_.callbacks());
    runner_->start();
  }

  std::shared_ptr<api_client> client_;
  std::unique_ptr<resources> res_;
  std::string ns_;
  job_settings settings_;
  recorder rec_;
  recorder rec2_;
  std::unique_ptr<job_runner> runner_;
};

TEST_F(job_runner_bed, a_job_runs_to_its_exit_code_with_its_logs) {
  start_runner();
  runner_->launch(request("1.1", 1, "echo hello from the pod; exit 3"));
  ASSERT_TRUE(rec_.await([&] { return rec_.exits.count("1.1") != 0; }))
      << ::testing::PrintToString(rec_.messages);
  EXPECT_EQ(rec_.exits["1.1"], 3);
  // Its output came before its exit (a command's lines before the exit
  // line `det cmd run` stops at).
  {
    std::lock_guard<std::mutex> g(rec_.mu);
    const auto& before = rec_.logs_at_exit["1.1"];
    EXPECT_TRUE(std::any_of(before.begin(), before.end(), [](const auto& l) {
      return l.find("hello from the pod") != std::string::npos;
    })) << ::testing::PrintToString(before);
  }
  auto l = runner_->list_allocations();
  ASSERT_TRUE(l);
  EXPECT_EQ(l->count("1.1"), 1u);
}

TEST_F(job_runner_bed, a_container_that_cannot_start_says_why) {
  start_runner();
  auto r = request("1.2", 1, "");
  r.command = {"/no/such/program"};
  runner_->launch(r);
  ASSERT_TRUE(rec_.await([&] { return rec_.exits.count("1.2") != 0; }))
      << ::testing::PrintToString(rec_.messages);
  EXPECT_NE(rec_.exits["1.2"], 0);
  // The kubelet's reason and message reach the allocation's messages
  // (the trial's logs).
  EXPECT_TRUE(rec_.await([&] {
    return rec_.has_message("/no/such/program")
           && rec_.has_message("exited with code");
  })) << ::testing::PrintToString(rec_.messages);
}

TEST_F(job_runner_bed, a_multi_pod_allocation_ends_when_every_pod_has) {
  start_runner();
  runner_->launch(request("2.1", 4, "echo pod up; exit 0"));
  ASSERT_TRUE(rec_.await([&] { return rec_.exits.count("2.1") != 0; }))
      << ::testing::PrintToString(rec_.messages);
  EXPECT_EQ(rec_.exits["2.1"], 0);
  auto pods =
      res_->list(pods_kind(), ns_, std::string{allocation_label} + "=2.1");
  ASSERT_TRUE(pods);
  EXPECT_EQ(pods->items.size(), 2u);
}

TEST_F(job_runner_bed, a_slot_count_that_does_not_divide_is_refused) {
  start_runner();
  runner_->launch(request("3.1", 3, "exit 0"));
  ASSERT_TRUE(rec_.await([&] { return rec_.exits.count("3.1") != 0; }));
  EXPECT_EQ(rec_.exits["3.1"], 1);
  EXPECT_TRUE(rec_.has_message("slots_per_trial"));
}

TEST_F(job_runner_bed, a_pod_that_does_not_fit_reports_the_schedulers_reason) {
  settings_.max_slots_per_pod = 64;
  start_runner();
  runner_->launch(request("4.1", 64, "exit 0"));
  EXPECT_TRUE(rec_.await([&] { return rec_.has_message("Insufficient cpu"); }))
      << ::testing::PrintToString(rec_.messages);
  runner_->kill("4.1", 0);
}

TEST_F(job_runner_bed, a_scheduler_message_ahead_of_its_pod_is_kept_for_it) {
  start_runner();
  // A pod of this cluster's (its labels) that no node takes.
  auto pending_pod = [&](const std::string& name, const std::string& alloc) {
    json labels{{cluster_label, label_value(settings_.cluster_id)},
                {allocation_label, label_value(alloc)}};
    return json{
        {"metadata", {{"name", name}, {"labels", labels}}},
        {"spec",
         {{"nodeSelector", {{"no-such-label", "x"}}},
          {"containers",
           {{{"name", "c"}, {"image", "det-task"}, {"command", {"true"}}}}}}}};
  };
  auto event = [&](const std::string& name, const std::string& pod,
                   const std::string& message) {
    return json{{"metadata", {{"name", name}}},
                {"involvedObject",
                 {{"kind", "Pod"}, {"name", pod}, {"namespace", ns_}}},
                {"reason", "FailedScheduling"},
                {"type", "Warning"},
                {"message", message}};
  };
  const auto& pods = pods_kind();
  const auto& events = events_kind();
  // A pod the runner knows, and an event for it reported: the events
  // watch is live (events it finds in its first list are not reported).
  ASSERT_TRUE(res_->create(pods, ns_, pending_pod("known-pod", "8.1")));
  ASSERT_TRUE(rec_.await([&] {
    for (const auto& st : rec_.states)
      if (st.rfind(label_value("8.1") + " ", 0) == 0)
        return true;
    return false;
  })) << ::testing::PrintToString(rec_.states);
  auto canary = [&](const std::string& text) {
    ASSERT_TRUE(res_->create(events, ns_, event(text, "known-pod", text)));
    ASSERT_TRUE(rec_.await([&] { return rec_.has_message(text); }))
        << ::testing::PrintToString(rec_.messages);
  };
  // Until the watch has listed, an event may land in its list: try a new
  // one each second, at most 30.
  bool live = false;
  for (int k = 0; k < 30 && !live; ++k) {
    auto text = "live-" + std::to_string(k);
    ASSERT_TRUE(res_->create(events, ns_, event(text, "known-pod", text)));
    live = rec_.await([&] { return rec_.has_message(text); }, 1);
  }
  ASSERT_TRUE(live) << ::testing::PrintToString(rec_.messages);
  // An event naming a pod the runner has not seen (none exists yet); the
  // next canary, on the same watch, shows it has been read.
  ASSERT_TRUE(res_->create(
      events, ns_,
      event("early.1", "late-pod", "0/2 nodes are available: early")));
  canary("canary-two");
  EXPECT_FALSE(rec_.has_message("early"));
  // The pod shows: the message kept for it is reported as its allocation's.
  ASSERT_TRUE(res_->create(pods, ns_, pending_pod("late-pod", "9.1")));
  EXPECT_TRUE(rec_.await([&] {
    return rec_.has_message(label_value("9.1")
                            + ": late-pod: FailedScheduling: 0/2 nodes are "
                              "available: early");
  })) << ::testing::PrintToString(rec_.messages);
}

TEST_F(job_runner_bed, kill_deletes_the_job_and_its_running_pod_ends) {
  start_runner();
  runner_->launch(request("5.1", 1, "echo started; sleep 300"));
  ASSERT_TRUE(rec_.await([&] { return rec_.has_log("started"); }))
      << ::testing::PrintToString(rec_.messages);
  runner_->kill("5.1", 1);
  ASSERT_TRUE(rec_.await([&] { return rec_.exits.count("5.1") != 0; }));
  EXPECT_NE(rec_.exits["5.1"], 0);
  auto gone =
      res_->get(jobs_kind(), ns_, job_name(settings_.cluster_id, "5.1"));
  EXPECT_FALSE(gone);
}

TEST_F(job_runner_bed, leftovers_of_this_cluster_are_deleted_others_kept) {
  start_runner();
  // Another cluster's Job in the same namespace, and an unlabelled one.
  job_settings other = settings_;
  other.cluster_id = "someone-else";
  auto theirs = render_job(other, request("6.1", 1, "sleep 300"));
  ASSERT_TRUE(theirs);
  theirs->job["spec"]["suspend"] = true;
  ASSERT_TRUE(res_->create(jobs_kind(), ns_, theirs->job));
  json plain = theirs->job;
  plain["metadata"]["name"] = "unlabelled";
  plain["metadata"]["labels"] = json::object();
  plain["spec"]["template"]["metadata"]["labels"] = {{"app", "x"}};
  ASSERT_TRUE(res_->create(jobs_kind(), ns_, plain));

  runner_->launch(request("7.1", 1, "sleep 300"));
  runner_->launch(request("8.1", 1, "sleep 300"));
  auto seen = [&](const std::string& a) {
    for (const auto& st : rec_.states)
      if (st.rfind(a + " ", 0) == 0)
        return true;
    return false;
  };
  ASSERT_TRUE(rec_.await([&] { return seen("7.1") && seen("8.1"); }))
      << ::testing::PrintToString(rec_.messages);
  auto deleted = runner_->delete_leftovers({"7.1"});
  ASSERT_TRUE(deleted) << det::render(deleted.error());
  EXPECT_EQ(*deleted,
            (std::vector<std::string>{job_name(settings_.cluster_id, "8.1")}));
  EXPECT_TRUE(res_->get(jobs_kind(), ns_, job_name("someone-else", "6.1")));
  EXPECT_TRUE(res_->get(jobs_kind(), ns_, "unlabelled"));
  EXPECT_TRUE(
      res_->get(jobs_kind(), ns_, job_name(settings_.cluster_id, "7.1")));
  runner_->kill("7.1", 0);
}

TEST_F(job_runner_bed,
       a_job_in_another_namespace_is_followed_found_and_killed) {
  // A workspace bound to a namespace of its own: the runner watches it
  // once it launches there, and finds its Jobs after a restart.
  auto team = unique("det-rm-team");
  ASSERT_TRUE(
      res_->create(namespaces_kind(), "", {{"metadata", {{"name", team}}}}));
  struct drop {
    resources* res;
    std::string ns;
    ~drop() { (void)res->remove(namespaces_kind(), "", ns); }
  } cleanup{res_.get(), team};
  start_runner();
  auto r = request("9.1", 1, "echo hello from the team; exit 4");
  r.ns = team;
  runner_->launch(r);
  auto r2 = request("9.2", 1, "echo waiting in the team; sleep 300");
  r2.ns = team;
  runner_->launch(r2);
  ASSERT_TRUE(rec_.await([&] {
    return rec_.exits.count("9.1") != 0 && rec_.has_log("waiting in the team");
  })) << ::testing::PrintToString(rec_.messages);
  EXPECT_EQ(rec_.exits["9.1"], 4);
  EXPECT_TRUE(rec_.has_log("hello from the team"));
  EXPECT_TRUE(
      res_->get(jobs_kind(), team, job_name(settings_.cluster_id, "9.2")));
  EXPECT_FALSE(
      res_->get(jobs_kind(), ns_, job_name(settings_.cluster_id, "9.2")));
  // A new runner (a restarted master) finds it there, and re-attaches:
  // the pod's exit comes through the namespace's watch.
  runner_.reset();
  // The fixture's (it outlives the runner, which TearDown stops).
  recorder& again = rec2_;
  runner_ = std::make_unique<job_runner>(client_, settings_, again.callbacks());
  auto found = runner_->list_allocations();
  ASSERT_TRUE(found) << det::render(found.error());
  EXPECT_EQ(found->count("9.2"), 1u);
  runner_->start();
  runner_->kill("9.2", 0);
  ASSERT_TRUE(again.await([&] { return again.exits.count("9.2") != 0; }))
      << ::testing::PrintToString(again.messages);
  EXPECT_NE(again.exits["9.2"], 0);
  EXPECT_FALSE(
      res_->get(jobs_kind(), team, job_name(settings_.cluster_id, "9.2")));
  // Leftovers are found in every namespace.
  auto r3 = request("9.3", 1, "sleep 300");
  r3.ns = team;
  runner_->launch(r3);
  ASSERT_TRUE(again.await([&] {
    for (const auto& st : again.states)
      if (st.rfind("9.3 ", 0) == 0)
        return true;
    return false;
  })) << ::testing::PrintToString(again.messages);
  auto deleted = runner_->delete_leftovers({});
  ASSERT_TRUE(deleted) << det::render(deleted.error());
  std::set<std::string> names(deleted->begin(), deleted->end());
  EXPECT_EQ(names,
            (std::set<std::string>{job_name(settings_.cluster_id, "9.1"),
                                   job_name(settings_.cluster_id, "9.3")}));
}

TEST_F(job_runner_bed, every_allocations_logs_arrive_one_after_another) {
  start_runner();
  runner_->launch(request("9.1", 1, "echo first-alloc; sleep 1; exit 1"));
  ASSERT_TRUE(rec_.await([&] { return rec_.exits.count("9.1") != 0; }));
  runner_->launch(request("9.2", 1, "sleep 1; echo second-alloc; sleep 1"));
  ASSERT_TRUE(rec_.await([&] { return rec_.exits.count("9.2") != 0; }));
  EXPECT_TRUE(rec_.await([&] { return rec_.has_log("first-alloc"); }, 20));
  EXPECT_TRUE(rec_.await([&] { return rec_.has_log("second-alloc"); }, 20))
      << ::testing::PrintToString(rec_.logs)
      << ::testing::PrintToString(rec_.messages);
}
