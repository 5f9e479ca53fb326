// A trial's allocation token at the REST routes' guard: which header
// carries it, what it may reach (its own trial, allocation and experiment),
// and that it dies with its allocation, on the replica-checked routes and
// on the metric report the master checks (token_check::by_master).
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace det;
using namespace det::test;

TEST_F(master_api_test, trial_endpoints_require_the_allocations_token) {
  auto no = call("GET", "/api/v1/allocations/1.1/signals/preemption", "", "");
  EXPECT_EQ(no.status, 401);
  // No allocation is live here: a well-formed token of none is unknown.
  auto dead = call("GET", "/api/v1/allocations/1.1/signals/preemption", "",
                   ctx->tokens->token_for("1.1"));
  EXPECT_EQ(dead.status, 401);
  // A user session is not a trial's token.
  auto user = call("GET", "/api/v1/allocations/1.1/signals/preemption");
  EXPECT_EQ(user.status, 403);
}

TEST_F(master_api_test, the_harness_allocation_token_header_is_accepted) {
  run_trial_1();
  auto r = call(
      "GET", "/api/v1/allocations/1.1/signals/preemption?timeout_seconds=0", "",
      ctx->tokens->token_for("1.1"), "Grpc-Metadata-x-allocation-token");
  EXPECT_EQ(r.status, 200) << r.body;
  // A live allocation's token on another allocation's endpoint.
  auto other =
      call("GET", "/api/v1/allocations/2.1/signals/preemption", "",
           ctx->tokens->token_for("1.1"), "Grpc-Metadata-x-allocation-token");
  EXPECT_EQ(other.status, 403);
}

TEST_F(master_api_test,
       a_trials_token_is_scoped_to_its_trial_and_dies_with_its_allocation) {
  run_trial_1();
  auto tok = ctx->tokens->token_for("1.1");
  EXPECT_EQ(call("GET", "/api/v1/trials/1", "", tok).status, 200);
  EXPECT_EQ(call("GET", "/api/v1/experiments/1", "", tok).status, 200);
  // No password or user changes, no other experiments, no cluster views.
  EXPECT_EQ(call("PATCH", "/api/v1/users/1",
                 json{{"password", "owned"}, {"isHashed", false}}.dump(), tok)
                .status,
            403);
  EXPECT_EQ(call("POST", "/api/v1/users",
                 json{{"user", {{"username", "mallory"}}}}.dump(), tok)
                .status,
            403);
  EXPECT_EQ(call("GET", "/api/v1/experiments", "", tok).status, 403);
  EXPECT_EQ(call("GET", "/api/v1/experiments/2", "", tok).status, 403);
  EXPECT_EQ(call("GET", "/api/v1/agents", "", tok).status, 403);
  // Of the runs routes, only the harness's: no acting on other runs.
  for (const char* path :
       {"/api/v1/runs/kill", "/api/v1/runs/pause", "/api/v1/runs/move",
        "/api/v1/runs/resume", "/api/v1/runs"})
    EXPECT_EQ(call("POST", path, R"({"runIds": [1]})", tok).status, 403)
        << path;
  EXPECT_NE(call("POST", "/api/v1/runs/start", R"({"runId": 1})", tok).status,
            403);
  // The allocation ends: its token, used (and cached) above, dies with it.
  caf::anon_send(ctx->master, command{allocation_exit_report{std::string{"1.1"},
                                                             int32_t{0}}});
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    status = call("GET", "/api/v1/trials/1", "", tok).status;
    if (status != 200)
      break;
    std::this_thread::yield();
  }
  EXPECT_EQ(status, 401) << "an ended allocation's token is still accepted";
}

// Metric reports take the guard's shortcut (token_check::by_master): a
// token checked once is let through from the cache, and the master checks
// the allocation. Once the allocation ends the report is refused as the
// guard refuses a dead token (401, not the master's 404), and the token is
// forgotten, so the next request is checked live again.
TEST_F(master_api_test,
       a_trials_cached_token_reports_until_its_allocation_ends_then_gets_401) {
  run_trial_1();
  auto token = ctx->tokens->token_for("1.1");
  int64_t steps = 0;
  auto report = [&] {
    return call("POST", "/api/v1/trials/1/metrics",
                json{{"group", "training"},
                     {"metrics",
                      {{"trialId", 1},
                       {"stepsCompleted", ++steps},
                       {"metrics", {{"avgMetrics", {{"loss", 0.5}}}}}}}}
                    .dump(),
                token);
  };
  for (int i = 0; i < 3; ++i) // the first checks live, the others cached
    EXPECT_EQ(report().status, 200) << report().body;
  ASSERT_TRUE(ctx->auth->cached_allocation(token).has_value());
  caf::anon_send(ctx->master, command{allocation_exit_report{std::string{"1.1"},
                                                             int32_t{0}}});
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
  http::http_response last;
  while (std::chrono::steady_clock::now() < deadline) {
    last = report();
    if (last.status != 200)
      break;
    std::this_thread::yield();
  }
  EXPECT_EQ(last.status, 401) << last.body;
  EXPECT_NE(last.body.find("invalid credentials"), std::string::npos)
      << last.body;
  EXPECT_FALSE(ctx->auth->cached_allocation(token).has_value());
  EXPECT_EQ(report().status, 401);
  // The master refuses from its own state, which may be ahead of what the
  // replicas have been handed; once they show the allocation gone, the
  // replica-checked routes refuse the token too.
  ASSERT_TRUE(await_read([](const state::cluster_state& s) {
    return s.allocations.count("1.1") == 0;
  }));
  EXPECT_EQ(call("GET", "/api/v1/trials/1", "", token).status, 401);
}
