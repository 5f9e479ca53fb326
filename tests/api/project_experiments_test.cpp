// A project's experiments as a set (api/api_project_experiments.hpp): the
// bulk actions by ids and by filters, their refusals, and the columns a
// project's table can show.

#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

using namespace det;
using namespace det::test;

namespace {

struct project_experiments : master_api_test {
  int64_t submit(const std::string& name, const std::string& more = "") {
    auto r = write("POST", "/api/v1/experiments",
                   create_body("name: " + name
                               + "\nentrypoint: python3 train.py\n"
                                 "searcher:\n  name: single\n  metric: loss\n"
                                 "  max_length:\n    batches: 10\n"
                               + more));
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["experiment"]["id"].get<int64_t>();
  }

  std::string state_of(int64_t id) {
    auto e = json::parse(
        call("GET", "/api/v1/experiments/" + std::to_string(id)).body);
    return e["experiment"]["state"].get<std::string>();
  }
};

TEST_F(project_experiments, filters_select_by_name_in_every_project) {
  auto a1 = submit("alpha-one");
  auto a2 = submit("ALPHA-two");
  auto b = submit("beta");
  // Upstream's SDK names no project (-1) and filters by name.
  auto r = write("POST", "/api/v1/projects/-1/experiments/pause",
                 R"({"projectId": -1, "experimentIds": [],
                     "filters": {"name": "alpha"}})");
  ASSERT_EQ(r.status, 200) << r.body;
  auto results = json::parse(r.body)["results"];
  ASSERT_EQ(results.size(), 2u) << r.body;
  for (const auto& x : results)
    EXPECT_EQ(x["error"], "") << r.body;
  EXPECT_EQ(state_of(a1), "STATE_PAUSED");
  EXPECT_EQ(state_of(a2), "STATE_PAUSED");
  EXPECT_NE(state_of(b), "STATE_PAUSED");
  // Kill with filters: the live ones only; then archive: the ended ones.
  r = write("POST", "/api/v1/projects/1/experiments/kill",
            R"({"filters": {"name": "alpha", "excludedExperimentIds": [)"
                + std::to_string(a2) + "]}}");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(json::parse(r.body)["results"].size(), 1u) << r.body;
  EXPECT_EQ(json::parse(r.body)["results"][0]["id"], a1);
  EXPECT_EQ(state_of(a2), "STATE_PAUSED");
}

TEST_F(project_experiments, named_ids_are_acted_on_and_unknown_ones_reported) {
  auto a = submit("one");
  auto r = write("POST", "/api/v1/projects/1/experiments/kill",
                 R"({"experimentIds": [)" + std::to_string(a) + ", 999]}");
  ASSERT_EQ(r.status, 200) << r.body;
  auto results = json::parse(r.body)["results"];
  ASSERT_EQ(results.size(), 2u) << r.body;
  bool missing_reported = false;
  for (const auto& x : results) {
    if (x["id"] == 999)
      missing_reported = x["error"] == "experiment 999 not found";
    else
      EXPECT_EQ(x["error"], "") << r.body;
  }
  EXPECT_TRUE(missing_reported) << r.body;
  // An experiment of another project is not found through project 2.
  r = write("POST", "/api/v1/projects/2/experiments/pause",
            R"({"experimentIds": [)" + std::to_string(a) + "]}");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(json::parse(r.body)["results"][0]["error"], "");
}

TEST_F(project_experiments, a_bad_selection_is_refused_naming_the_field) {
  for (auto [body, field] :
       std::initializer_list<std::pair<const char*, const char*>>{
           {R"({"experimentIds": ["x"]})", "experimentIds"},
           {R"({"experimentIds": [0]})", "experimentIds"},
           {R"({"filters": {"states": ["STATE_BOGUS"]}})", "filters.states"},
           {R"({"filters": {"name": 7}})", "filters.name"},
           {R"({"filters": {"archived": "yes"}})", "filters.archived"},
           {R"({"filters": {"userIds": [-3]}})", "filters.userIds"},
           {R"({"filters": []})", "filters"}}) {
    auto r = call("POST", "/api/v1/projects/1/experiments/cancel", body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_NE(r.body.find(field), std::string::npos) << r.body;
  }
  auto r = call("POST", "/api/v1/projects/abc/experiments/kill", "{}");
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("projectId"), std::string::npos) << r.body;
}

TEST_F(project_experiments, columns_name_hyperparameter_leaves) {
  submit("hp", "hyperparameters:\n  flat: 1\n  nest:\n    sub1: 1\n"
               "    sub2: a\n    empty_leaf: {}\n");
  auto r = call("GET", "/api/v1/projects/1/columns");
  ASSERT_EQ(r.status, 200) << r.body;
  std::map<std::string, std::string> types;
  auto answer = json::parse(r.body);
  for (const auto& c : answer["columns"])
    types[c["column"].get<std::string>()] = c["type"].get<std::string>();
  EXPECT_EQ(types["id"], "COLUMN_TYPE_NUMBER");
  EXPECT_EQ(types["hp.flat"], "COLUMN_TYPE_NUMBER");
  EXPECT_EQ(types["hp.nest.sub1"], "COLUMN_TYPE_NUMBER");
  EXPECT_EQ(types["hp.nest.sub2"], "COLUMN_TYPE_TEXT");
  EXPECT_EQ(types.count("hp.nest.empty_leaf"), 0u);
  EXPECT_EQ(call("GET", "/api/v1/projects/99/columns").status, 404);
  EXPECT_EQ(call("GET", "/api/v1/projects/99/experiments/metric-ranges").status,
            404);
  auto ranges = call("GET", "/api/v1/projects/1/experiments/metric-ranges");
  ASSERT_EQ(ranges.status, 200) << ranges.body;
  EXPECT_TRUE(json::parse(ranges.body)["ranges"].is_array());
}

} // namespace
