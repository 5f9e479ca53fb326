// The queue family's table (api/queue_routes.cpp) as a caller meets it: no
// session is 401 on every row; a running experiment is one job of the
// queue, under "full" in v2; an update list that is not 1 to 1000 updates
// is 400 naming `updates`.

#include "api/queue_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

using queue_routes = master_api_test;

TEST_F(queue_routes, every_row_refuses_no_session) {
  expect_401_without_a_session(api::queue_routes());
}

TEST_F(queue_routes, the_running_trial_is_a_job_and_bad_updates_are_400) {
  run_trial_1();
  auto v1 = get("/api/v1/job-queues");
  ASSERT_EQ(v1["jobs"].size(), 1u) << v1;
  auto v2 = get("/api/v1/job-queues-v2");
  ASSERT_EQ(v2["jobs"].size(), 1u) << v2;
  EXPECT_EQ(v2["jobs"][0]["full"], v1["jobs"][0]) << v2;
  for (const char* bad : {R"({})", R"({"updates": []})", R"({"updates": 3})"}) {
    auto r = call("POST", "/api/v1/job-queues", bad);
    EXPECT_EQ(r.status, 400) << bad << ": " << r.body;
    EXPECT_EQ(json::parse(r.body)["error"]["error"],
              "updates: expected a list of 1 to 1000 queue updates")
        << r.body;
  }
}

} // namespace
