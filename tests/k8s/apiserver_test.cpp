// The client against a real kube-apiserver (the test bed): create, get,
// list, patch, delete with propagation, a watch that sees the changes, a
// watch from an expired resourceVersion that must re-list, and a pod's log.
// Skips without K8S_BED_KUBECONFIG.

#include "k8s/job_spec.hpp"
#include "k8s/resources.hpp"
#include "k8s/watch.hpp"
#include "tests/k8s/bed_client.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

using namespace det::k8s;
using nlohmann::json;

namespace {

using det::test::bed_client;
using det::test::unique;

} // namespace

class apiserver : public ::testing::Test {
protected:
  void SetUp() override {
    client_ = bed_client();
    if (!client_)
      GTEST_SKIP() << "K8S_BED_KUBECONFIG unset: no test bed";
    res_ = std::make_unique<resources>(client_);
    ns_ = unique("k8s-client-test");
    auto created = res_->create({"/api/v1", "namespaces", false}, "",
                                {{"metadata", {{"name", ns_}}}});
    ASSERT_TRUE(created) << det::render(created.error());
  }
  void TearDown() override {
    if (res_)
      (void)res_->remove({"/api/v1", "namespaces", false}, "", ns_);
  }
  std::shared_ptr<api_client> client_;
  std::unique_ptr<resources> res_;
  std::string ns_;
};

TEST_F(apiserver, creates_lists_patches_and_deletes_configmaps_by_label) {
  json cm = {
      {"metadata",
       {{"name", "cm1"},
        {"labels", {{cluster_label, "test"}, {allocation_label, "1.1"}}}}},
      {"data", {{"a", "1"}}}};
  ASSERT_TRUE(res_->create(configmaps_kind(), ns_, cm));
  // A retried create that had landed reads the object.
  ASSERT_TRUE(res_->create(configmaps_kind(), ns_, cm));
  auto l = res_->list(configmaps_kind(), ns_, cluster_selector("test"));
  ASSERT_TRUE(l);
  ASSERT_EQ(l->items.size(), 1u);
  EXPECT_FALSE(l->resource_version.empty());
  auto p = res_->merge_patch(configmaps_kind(), ns_, "cm1",
                             {{"data", {{"b", "2"}}}});
  ASSERT_TRUE(p);
  EXPECT_EQ((*p)["data"]["b"], "2");
  EXPECT_FALSE(res_->remove(configmaps_kind(), ns_, "cm1"));
  auto gone = res_->get(configmaps_kind(), ns_, "cm1");
  ASSERT_FALSE(gone);
  EXPECT_EQ(det::code_of(gone.error()), det::errc::not_found);
  EXPECT_FALSE(res_->remove(configmaps_kind(), ns_, "cm1")); // gone is fine
}

TEST_F(apiserver, a_rendered_job_is_accepted_and_deleted_with_background) {
  job_settings s;
  s.cluster_id = "test";
  s.ns = ns_;
  s.max_slots_per_pod = 4;
  job_request r;
  r.allocation_id = "5.1";
  r.trial_id = 5;
  r.experiment_id = 2;
  r.user = "admin";
  r.slots = 8;
  r.image = "det-task";
  r.command = {"/bin/true"};
  auto o = render_job(s, r);
  ASSERT_TRUE(o);
  ASSERT_TRUE(res_->create(priority_classes_kind(), "", priority_class(42))
              || true);
  auto cm = res_->create(configmaps_kind(), ns_, o->config_map);
  ASSERT_TRUE(cm) << det::render(cm.error());
  auto job = res_->create(jobs_kind(), ns_, o->job);
  ASSERT_TRUE(job) << det::render(job.error());
  EXPECT_EQ((*job)["spec"]["parallelism"], 2);
  EXPECT_FALSE(res_->remove(jobs_kind(), ns_, o->job["metadata"]["name"],
                            "Background", 15));
}

TEST_F(apiserver, a_watch_sees_changes_and_an_expired_version_relists) {
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<std::string> seen;
  std::vector<std::string> notes;
  int syncs = 0;
  watch_options opts;
  opts.timeout_seconds = 5;
  opts.max_lists = 3;
  // Start from a resourceVersion that is long compacted away: the server
  // answers with a 410 (or an ERROR event) and the loop must list again.
  std::thread t([&] {
    watch_loop(*res_, configmaps_kind(), ns_, opts,
               {[&](const std::vector<json>&) {
                  std::lock_guard<std::mutex> g(mu);
                  ++syncs;
                },
                [&](const watch_event& ev) {
                  std::lock_guard<std::mutex> g(mu);
                  seen.push_back(
                      ev.type + " "
                      + ev.object["metadata"]["name"].get<std::string>());
                },
                [&](const std::string& n) {
                  std::lock_guard<std::mutex> g(mu);
                  notes.push_back(n);
                }},
               stop);
  });
  auto wait_for = [&](auto pred) {
    for (int i = 0; i < 200; ++i) {
      {
        std::lock_guard<std::mutex> g(mu);
        if (pred())
          return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  };
  ASSERT_TRUE(wait_for([&] { return syncs >= 1; }));
  ASSERT_TRUE(
      res_->create(configmaps_kind(), ns_, {{"metadata", {{"name", "w1"}}}}));
  EXPECT_TRUE(wait_for([&] {
    return std::find(seen.begin(), seen.end(), "ADDED w1") != seen.end();
  }));
  ASSERT_FALSE(res_->remove(configmaps_kind(), ns_, "w1"));
  EXPECT_TRUE(wait_for([&] {
    return std::find(seen.begin(), seen.end(), "DELETED w1") != seen.end();
  }));
  stop = true;
  t.join();

  // A watch from resourceVersion 1 is too old on any live server.
  std::string body;
  std::string got;
  std::atomic<bool> never{false};
  auto status = client_->stream(
      watch_path(configmaps_kind(), ns_, "", "1", 5),
      [&](std::string_view c) {
        got.append(c);
        return got.find('\n') == std::string::npos;
      },
      never, std::chrono::seconds(10), &body);
  ASSERT_TRUE(status);
  bool expired =
      *status == 410 || got.find("\"code\":410") != std::string::npos;
  EXPECT_TRUE(expired) << *status << " " << got << body;
}
