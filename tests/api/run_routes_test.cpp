// The run family's table (api/run_routes.cpp) as a caller meets it: no
// session is 401 on every row; the harness starts its run with its
// allocation token (a run that is no positive id is 400 naming runId); a
// search finds the run and kill acts on it, one result per run.

#include "api/run_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

using run_routes = master_api_test;

TEST_F(run_routes, every_row_refuses_no_session) {
  expect_401_without_a_session(api::run_routes());
}

TEST_F(run_routes, the_harness_starts_its_run_and_a_bad_run_id_is_400) {
  run_trial_1();
  auto tok = ctx->tokens->token_for("1.1");
  for (const char* bad : {R"({})", R"({"runId": 0})", R"({"runId": "1"})"}) {
    auto r = call("POST", "/api/v1/runs/start", bad, tok);
    EXPECT_EQ(r.status, 400) << bad << ": " << r.body;
    EXPECT_EQ(json::parse(r.body)["error"]["error"],
              "runId: required, a positive trial id")
        << r.body;
  }
  auto started = call("POST", "/api/v1/runs/start", R"({"runId": 1})", tok);
  EXPECT_EQ(started.status, 200) << started.body;
  auto gone = call("POST", "/api/v1/runs/start", R"({"runId": 99})", tok);
  EXPECT_EQ(gone.status, 404) << gone.body;
}

TEST_F(run_routes, a_search_lists_the_run_and_kill_answers_per_run) {
  run_trial_1();
  auto found = call("POST", "/api/v1/runs", R"({"projectId": 1})");
  ASSERT_EQ(found.status, 200) << found.body;
  auto runs = json::parse(found.body)["runs"];
  ASSERT_EQ(runs.size(), 1u) << found.body;
  EXPECT_EQ(runs[0]["id"], 1) << found.body;
  auto killed = write("POST", "/api/v1/runs/kill",
                      R"({"runIds": [1, 77], "projectId": 1})");
  ASSERT_EQ(killed.status, 200) << killed.body;
  auto results = json::parse(killed.body)["results"];
  ASSERT_EQ(results.size(), 2u) << killed.body;
  for (const auto& r : results) {
    if (r["id"] == 1)
      EXPECT_EQ(r["error"], "") << killed.body;
    else
      EXPECT_NE(r["error"], "") << killed.body;
  }
}

TEST_F(run_routes,
       a_filter_takes_the_runs_a_search_lists_and_the_master_judges_each) {
  run_trial_1();
  // A filter of no conditions takes every run of the project.
  auto deleted = write("POST", "/api/v1/runs/delete",
                       R"({"filter": "{}", "projectId": 1})");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(
      json::parse(deleted.body)["results"],
      json::parse(R"([{"id": 1, "error": "Run is not in a terminal state."}])"))
      << deleted.body;
  auto archived = write("POST", "/api/v1/runs/archive",
                        R"({"runIds": [1, 5], "projectId": 1})");
  ASSERT_EQ(archived.status, 200) << archived.body;
  auto results = json::parse(archived.body)["results"];
  ASSERT_EQ(results.size(), 2u) << archived.body;
  for (const auto& r : results)
    EXPECT_EQ(r["error"], r["id"] == 1 ? "Run is not in terminal state."
                                       : "Run with id '5' not found in "
                                         "project with id '1'")
        << archived.body;
  auto killed =
      write("POST", "/api/v1/runs/kill", R"({"filter": "{}", "projectId": 1})");
  ASSERT_EQ(killed.status, 200) << killed.body;
  EXPECT_EQ(json::parse(killed.body)["results"],
            json::parse(R"([{"id": 1, "error": ""}])"))
      << killed.body;
  // A project with no runs: the filter takes none.
  auto none = write("POST", "/api/v1/runs/kill",
                    R"({"filter": "{}", "projectId": 77})");
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(json::parse(none.body)["results"], json::array()) << none.body;
}

} // namespace
