// read/run_filter: upstream's run filter read against a run's flat JSON,
// each rule of the header checked on runs built by hand, and each kind of
// bad filter refused naming its field.

#include "read/run_filter.hpp"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

namespace {

using json = nlohmann::json;
using det::read::filter_error;
using det::read::run_filter;

json run(int64_t id, double lr, const char* state, json summary = nullptr) {
  json r{{"id", id},
         {"state", state},
         {"startTime", "2026-11-28T10:00:00Z"},
         {"checkpointSize", "2048"},
         {"labels", {"Vision", "big"}},
         {"hyperparameters", {{"lr", lr}, {"opt", {{"name", "adam"}}}}},
         {"experiment",
          {{"id", 7},
           {"name", "Resnet sweep"},
           {"searcherType", id == 1 ? "single" : "grid"},
           {"progress", 0.504}}}};
  if (!summary.is_null())
    r["summaryMetrics"] = std::move(summary);
  return r;
}

json field(const char* location, const char* column, const char* op,
           json value) {
  json f{{"kind", "field"},
         {"location", location},
         {"columnName", column},
         {"operator", op}};
  if (!value.is_null())
    f["value"] = std::move(value);
  return f;
}

// A vector, not a json: `{field(...)}` as a json would be the one field
// itself with some compilers (nlohmann's initializer-list rule).
json group(const char* conjunction, std::vector<json> children) {
  return {{"kind", "group"},
          {"conjunction", conjunction},
          {"children", json(std::move(children))}};
}

run_filter parsed(const json& g) {
  auto p = run_filter::parse(g);
  if (auto* e = std::get_if<filter_error>(&p))
    ADD_FAILURE() << e->field << ": " << e->message;
  return std::get<run_filter>(std::move(p));
}

filter_error refused(const json& g) {
  auto p = run_filter::parse(g);
  EXPECT_TRUE(std::holds_alternative<filter_error>(p)) << g.dump();
  return std::holds_alternative<filter_error>(p) ? std::get<filter_error>(p)
                                                 : filter_error{};
}

TEST(RunFilter, RunColumnsCompareAsUpstreamsSqlDoes) {
  auto a = run(1, 0.05, "ACTIVE");
  auto b = run(2, 0.2, "CANCELED");
  auto f =
      parsed(group("and", {field("LOCATION_TYPE_RUN", "experimentId", "=", 7),
                           field("LOCATION_TYPE_RUN", "id", ">=", 2)}));
  EXPECT_FALSE(f.matches(a));
  EXPECT_TRUE(f.matches(b));
  // A state with or without upstream's prefix; text without case.
  EXPECT_TRUE(parsed(group("and", {field("LOCATION_TYPE_RUN", "state", "=",
                                         "STATE_ACTIVE")}))
                  .matches(a));
  EXPECT_TRUE(parsed(group("and", {field("LOCATION_TYPE_RUN", "experimentName",
                                         "contains", "RESNET")}))
                  .matches(a));
  // checkpointSize is text in the row but a number to the filter.
  EXPECT_TRUE(parsed(group("and", {field("LOCATION_TYPE_RUN", "checkpointSize",
                                         ">", 1000)}))
                  .matches(a));
  // Progress in percent, rounded; tags match when any element does.
  EXPECT_TRUE(parsed(group("and", {field("LOCATION_TYPE_RUN",
                                         "experimentProgress", "=", 50)}))
                  .matches(a));
  EXPECT_TRUE(parsed(group("and", {field("LOCATION_TYPE_RUN", "tags",
                                         "contains", "visi")}))
                  .matches(a));
  EXPECT_FALSE(parsed(group("and", {field("LOCATION_TYPE_RUN", "tags",
                                          "notContains", "visi")}))
                   .matches(a));
  EXPECT_TRUE(parsed(group("and", {field("LOCATION_TYPE_RUN", "isExpMultitrial",
                                         "=", true)}))
                  .matches(b));
  // Times in ISO-8601 compare in time order.
  EXPECT_TRUE(parsed(group("and", {field("LOCATION_TYPE_RUN", "startTime", "<",
                                         "2026-11-29T00:00:00Z")}))
                  .matches(a));
}

TEST(RunFilter, OrGroupsNestAndEmptyOnesTakeEverything) {
  auto a = run(1, 0.05, "ACTIVE");
  auto b = run(2, 0.2, "CANCELED");
  auto c = run(3, 0.5, "COMPLETED");
  auto f = parsed(group(
      "or",
      {field("LOCATION_TYPE_RUN", "id", "=", 1),
       group("and", {field("LOCATION_TYPE_RUN", "id", ">", 1),
                     field("LOCATION_TYPE_RUN", "state", "=", "COMPLETED")})}));
  EXPECT_TRUE(f.matches(a));
  EXPECT_FALSE(f.matches(b));
  EXPECT_TRUE(f.matches(c));
  EXPECT_TRUE(parsed(group("or", {})).matches(b));
  // A field without a value takes every run, as upstream's.
  EXPECT_TRUE(
      parsed(group("and", {field("LOCATION_TYPE_RUN", "id", "=", nullptr)}))
          .matches(b));
}

TEST(RunFilter, HyperparametersAndMetricsAreReadFromTheRun) {
  json summary{
      {"validation_metrics", {{"loss", {{"min", 0.25}, {"last", 0.3}}}}},
      {"group_b", {{"acc.top1", {{"max", 0.9}}}}}};
  auto a = run(1, 0.05, "ACTIVE", summary);
  auto b = run(2, 0.2, "ACTIVE");
  auto hp = parsed(group(
      "and", {field("LOCATION_TYPE_RUN_HYPERPARAMETERS", "lr", ">=", 0.1)}));
  EXPECT_FALSE(hp.matches(a));
  EXPECT_TRUE(hp.matches(b));
  EXPECT_TRUE(parsed(group("and", {field("LOCATION_TYPE_HYPERPARAMETERS",
                                         "hp.opt.name", "=", "adam")}))
                  .matches(a));
  auto val = parsed(group("and", {field("LOCATION_TYPE_VALIDATIONS",
                                        "validation.loss.min", "<", 0.3)}));
  EXPECT_TRUE(val.matches(a));
  // No metric: only isEmpty takes the run (SQL's NULL).
  EXPECT_FALSE(val.matches(b));
  EXPECT_TRUE(
      parsed(group("and", {field("LOCATION_TYPE_VALIDATIONS",
                                 "validation.loss.min", "isEmpty", nullptr)}))
          .matches(b));
  // A metric name holding a dot, in a custom group.
  EXPECT_TRUE(parsed(group("and", {field("LOCATION_TYPE_CUSTOM_METRIC",
                                         "group_b.acc.top1.max", ">", 0.5)}))
                  .matches(a));
  // Runs carry no metadata here.
  EXPECT_FALSE(parsed(group("and", {field("LOCATION_TYPE_RUN_METADATA",
                                          "metadata.k", "=", 1)}))
                   .matches(a));
}

TEST(RunFilter, BadFiltersAreRefusedNamingTheField) {
  EXPECT_EQ(refused(json::array()).field, "filter.filterGroup");
  EXPECT_EQ(refused(group("xor", {})).field, "filter.filterGroup.conjunction");
  EXPECT_EQ(refused(group("and", {json{{"columnName", "id"}}})).field,
            "filter.filterGroup.children[0].kind");
  auto op = refused(group("and", {field("LOCATION_TYPE_RUN", "id", "~", 1)}));
  EXPECT_EQ(op.field, "filter.filterGroup.children[0].operator");
  auto col =
      refused(group("and", {field("LOCATION_TYPE_RUN", "id", "=", 1),
                            field("LOCATION_TYPE_RUN", "password", "=", 1)}));
  EXPECT_EQ(col.field, "filter.filterGroup.children[1].columnName");
  EXPECT_NE(col.message.find("'password'"), std::string::npos);
  EXPECT_EQ(
      refused(group("and", {field("LOCATION_TYPE_SOMEWHERE", "id", "=", 1)}))
          .field,
      "filter.filterGroup.children[0].location");
  EXPECT_EQ(refused(group("and", {field("LOCATION_TYPE_VALIDATIONS",
                                        "validation.loss.median", "<", 1)}))
                .field,
            "filter.filterGroup.children[0].columnName");
  EXPECT_EQ(refused(group("and", {field("LOCATION_TYPE_RUN", "id", "=",
                                        json{{"$gt", 1}})}))
                .field,
            "filter.filterGroup.children[0].value");
  // Bounded: nesting, and nodes in all.
  json deep = group("and", {});
  for (size_t i = 0; i < det::read::max_filter_depth + 1; ++i)
    deep = group("and", {deep});
  EXPECT_NE(refused(deep).message.find("nest"), std::string::npos);
  std::vector<json> wide;
  for (size_t i = 0; i < det::read::max_filter_nodes; ++i)
    wide.push_back(field("LOCATION_TYPE_RUN", "id", "=", 1));
  EXPECT_NE(refused(group("and", wide)).message.find("at most"),
            std::string::npos);
}

} // namespace
