#include "k8s/resources.hpp"

#include "scripted_client.hpp"

#include <gtest/gtest.h>

using namespace det::k8s;
using det::k8s::testing::scripted_answer;
using det::k8s::testing::scripted_client;
using nlohmann::json;

namespace {

struct fixture {
  std::shared_ptr<scripted_client> client = std::make_shared<scripted_client>();
  std::vector<int64_t> waits;
  resources res{
      client,
      {4, std::chrono::milliseconds(100), std::chrono::milliseconds(1000),
       [this](std::chrono::milliseconds d) { waits.push_back(d.count()); },
       [] { return 0.0; }}};
};

} // namespace

TEST(resources, retries_503_and_transport_failures_with_growing_waits) {
  fixture f;
  f.client->answers = {{503, {}, false, {}},
                       {0, {}, true, {}},
                       {200, {{"metadata", {{"name", "j"}}}}, false, {}}};
  auto got = f.res.get(jobs_kind(), "ns", "j");
  ASSERT_TRUE(got) << det::render(got.error());
  EXPECT_EQ(f.waits, (std::vector<int64_t>{100, 200}));
  EXPECT_EQ(f.client->calls[0], "GET /apis/batch/v1/namespaces/ns/jobs/j");
}

TEST(resources, gives_up_after_the_attempt_budget) {
  fixture f;
  for (int i = 0; i < 6; ++i)
    f.client->answers.push_back({503, {{"message", "busy"}}, false, {}});
  auto got = f.res.get(jobs_kind(), "ns", "j");
  ASSERT_FALSE(got);
  EXPECT_EQ(f.client->calls.size(), 4u);
}

TEST(resources, a_create_answered_already_exists_reads_the_object) {
  fixture f;
  f.client->answers = {
      {409, {{"reason", "AlreadyExists"}}, false, {}},
      {200, {{"metadata", {{"name", "j"}, {"uid", "u1"}}}}, false, {}}};
  auto got = f.res.create(jobs_kind(), "ns", {{"metadata", {{"name", "j"}}}});
  ASSERT_TRUE(got);
  EXPECT_EQ((*got)["metadata"]["uid"], "u1");
}

TEST(resources,
     a_forbidden_create_names_the_server_message_and_is_not_retried) {
  fixture f;
  f.client->answers = {
      {403,
       {{"reason", "Forbidden"}, {"message", "jobs.batch is forbidden"}},
       false,
       {}}};
  auto got = f.res.create(jobs_kind(), "ns", {{"metadata", {{"name", "j"}}}});
  ASSERT_FALSE(got);
  EXPECT_NE(det::render(got.error()).find("jobs.batch is forbidden"),
            std::string::npos);
  EXPECT_EQ(f.client->calls.size(), 1u);
}

TEST(resources, delete_sends_the_propagation_policy_and_accepts_gone) {
  fixture f;
  f.client->answers = {{404, {}, false, {}}};
  EXPECT_FALSE(f.res.remove(jobs_kind(), "ns", "j", "Background", 15));
  EXPECT_EQ(f.client->bodies[0]["propagationPolicy"], "Background");
  EXPECT_EQ(f.client->bodies[0]["gracePeriodSeconds"], 15);
}

TEST(resources, list_follows_continue_tokens) {
  fixture f;
  f.client->answers = {
      {200,
       {{"metadata", {{"continue", "c1"}, {"resourceVersion", "1"}}},
        {"items", json::array({1})}},
       false,
       {}},
      {200,
       {{"metadata", {{"resourceVersion", "2"}}}, {"items", json::array({2})}},
       false,
       {}}};
  auto l = f.res.list(pods_kind(), "ns", "determined.ai/cluster=c", 1);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->items.size(), 2u);
  EXPECT_EQ(l->resource_version, "2");
  EXPECT_NE(f.client->calls[1].find("continue=c1"), std::string::npos);
  EXPECT_NE(
      f.client->calls[0].find("labelSelector=determined.ai%2Fcluster%3Dc"),
      std::string::npos);
}
