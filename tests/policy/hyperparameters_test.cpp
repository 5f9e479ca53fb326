#include "policy/hyperparameters.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

namespace det::policy {
namespace {

using json = nlohmann::json;

struct bad_space_case {
  const char* name;
  json space;
  const char* field;
};

class malformed_hyperparameters
    : public ::testing::TestWithParam<bad_space_case> {};

TEST_P(malformed_hyperparameters, are_rejected_naming_the_field) {
  auto r = parse_hyperparameters(GetParam().space);
  ASSERT_FALSE(r);
  EXPECT_EQ(code_of(r.error()), errc::invalid_argument);
  EXPECT_NE(render(r.error()).find(GetParam().field), std::string::npos)
      << render(r.error());
}

INSTANTIATE_TEST_SUITE_P(
    table, malformed_hyperparameters,
    ::testing::Values(
        bad_space_case{"unknown_type",
                       {{"lr", {{"type", "gaussian"}}}},
                       "hyperparameters.lr.type"},
        bad_space_case{
            "inverted_range",
            {{"lr", {{"type", "double"}, {"minval", 1}, {"maxval", 0}}}},
            "hyperparameters.lr.maxval"},
        bad_space_case{"missing_bound",
                       {{"n", {{"type", "int"}, {"minval", 1}}}},
                       "hyperparameters.n.maxval"},
        bad_space_case{
            "fractional_int_bound",
            {{"n", {{"type", "int"}, {"minval", 1.5}, {"maxval", 3}}}},
            "hyperparameters.n"},
        bad_space_case{
            "empty_categorical",
            {{"opt", {{"type", "categorical"}, {"vals", json::array()}}}},
            "hyperparameters.opt.vals"},
        bad_space_case{
            "log_without_base",
            {{"lr", {{"type", "log"}, {"minval", -4}, {"maxval", -1}}}},
            "hyperparameters.lr.base"},
        bad_space_case{"zero_count",
                       {{"lr",
                         {{"type", "double"},
                          {"minval", 0},
                          {"maxval", 1},
                          {"count", 0}}}},
                       "hyperparameters.lr.count"},
        bad_space_case{"nested_error_has_its_path",
                       {{"opt", {{"lr", {{"type", "nope"}}}}}},
                       "hyperparameters.opt.lr.type"}),
    [](const auto& tc) { return std::string{tc.param.name}; });

struct grid_case {
  const char* name;
  json spec;
  json expected; // the values of "x" in grid order
};

class grid_values : public ::testing::TestWithParam<grid_case> {};

TEST_P(grid_values, are_spaced_as_upstream_spaces_them) {
  auto space = parse_hyperparameters(json{{"x", GetParam().spec}});
  ASSERT_TRUE(space) << render(space.error());
  auto points = grid_points(*space);
  ASSERT_TRUE(points) << render(points.error());
  json got = json::array();
  for (const auto& p : *points)
    got.push_back(p.at("x"));
  ASSERT_EQ(got.size(), GetParam().expected.size()) << got.dump();
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].is_number_float())
      EXPECT_NEAR(got[i].get<double>(), GetParam().expected[i].get<double>(),
                  1e-9);
    else
      EXPECT_EQ(got[i], GetParam().expected[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(
    table, grid_values,
    ::testing::Values(
        grid_case{"const", {{"type", "const"}, {"val", "adam"}}, {"adam"}},
        grid_case{"bare_value_is_const", 7, {7}},
        grid_case{
            "int_evenly_spaced",
            {{"type", "int"}, {"minval", 0}, {"maxval", 10}, {"count", 3}},
            {0, 5, 10}},
        grid_case{
            "int_count_clamped_to_the_range",
            {{"type", "int"}, {"minval", 1}, {"maxval", 3}, {"count", 10}},
            {1, 2, 3}},
        grid_case{"int_count_one_is_the_midpoint",
                  {{"type", "int"}, {"minval", 1}, {"maxval", 4}, {"count", 1}},
                  {3}},
        grid_case{
            "double_includes_both_ends",
            {{"type", "double"}, {"minval", 0}, {"maxval", 1}, {"count", 5}},
            {0.0, 0.25, 0.5, 0.75, 1.0}},
        grid_case{
            "double_count_one_is_the_midpoint",
            {{"type", "double"}, {"minval", 0}, {"maxval", 1}, {"count", 1}},
            {0.5}},
        grid_case{"log_spaces_the_exponent",
                  {{"type", "log"},
                   {"minval", -3},
                   {"maxval", -1},
                   {"base", 10},
                   {"count", 3}},
                  {0.001, 0.01, 0.1}},
        grid_case{"categorical_keeps_its_order",
                  {{"type", "categorical"}, {"vals", {"b", "a", 3}}},
                  {"b", "a", 3}}),
    [](const auto& tc) { return std::string{tc.param.name}; });

TEST(grid_points, is_the_cartesian_product_including_nested_names) {
  auto space = parse_hyperparameters(json::parse(R"({
    "lr": {"type": "categorical", "vals": [0.1, 0.01]},
    "opt": {"name": "sgd", "momentum": {"type": "int", "minval": 0,
                                         "maxval": 2, "count": 3}}
  })"));
  ASSERT_TRUE(space);
  auto points = grid_points(*space);
  ASSERT_TRUE(points);
  ASSERT_EQ(points->size(), 6u);
  EXPECT_EQ((*points)[0],
            json::parse(R"({"lr":0.1,"opt":{"momentum":0,"name":"sgd"}})"));
  EXPECT_EQ((*points)[5],
            json::parse(R"({"lr":0.01,"opt":{"momentum":2,"name":"sgd"}})"));
}

TEST(hyperparameters,
     an_empty_nested_one_reaches_every_point_as_an_empty_object) {
  // Upstream's noop fixture declares `actions: {}` and reads
  // hparams["actions"] in the trial.
  auto space = parse_hyperparameters(json::parse(R"({
    "actions": {},
    "opt": {"inner": {}, "lr": {"type": "categorical", "vals": [1, 2]}}
  })"));
  ASSERT_TRUE(space);
  auto points = grid_points(*space);
  ASSERT_TRUE(points);
  ASSERT_EQ(points->size(), 2u);
  EXPECT_EQ((*points)[1],
            json::parse(R"({"actions":{},"opt":{"inner":{},"lr":2}})"));
  rng r{7};
  EXPECT_EQ(sample(*space, r)["actions"], json::object());
  auto only_empty = parse_hyperparameters(json::parse(R"({"actions": {}})"));
  ASSERT_TRUE(only_empty);
  EXPECT_EQ(sample(*only_empty, r), json::parse(R"({"actions":{}})"));
}

TEST(grid_points, needs_a_count_for_ranged_hyperparameters) {
  auto space = parse_hyperparameters(
      {{"lr", {{"type", "double"}, {"minval", 0}, {"maxval", 1}}}});
  ASSERT_TRUE(space);
  auto points = grid_points(*space);
  ASSERT_FALSE(points);
  EXPECT_NE(render(points.error()).find("hyperparameters.lr.count"),
            std::string::npos);
}

TEST(grid_points, refuses_a_grid_too_large_to_run) {
  json spec = json::object();
  for (int i = 0; i < 6; ++i)
    spec["h" + std::to_string(i)] = {
        {"type", "int"}, {"minval", 0}, {"maxval", 99}, {"count", 100}};
  auto space = parse_hyperparameters(spec);
  ASSERT_TRUE(space);
  EXPECT_FALSE(grid_points(*space));
}

TEST(sample, stays_within_bounds_and_repeats_for_the_same_seed) {
  auto space = parse_hyperparameters(json::parse(R"({
    "n": {"type": "int", "minval": 2, "maxval": 4},
    "x": {"type": "double", "minval": -1, "maxval": 1},
    "lr": {"type": "log", "minval": -4, "maxval": -2, "base": 10},
    "opt": {"type": "categorical", "vals": ["sgd", "adam"]},
    "c": {"type": "const", "val": 1}
  })"));
  ASSERT_TRUE(space);
  rng a{7}, b{7};
  for (int i = 0; i < 500; ++i) {
    auto p = sample(*space, a);
    EXPECT_EQ(p, sample(*space, b));
    auto n = p.at("n").get<int>();
    EXPECT_TRUE(n >= 2 && n <= 4);
    auto x = p.at("x").get<double>();
    EXPECT_TRUE(x >= -1 && x < 1);
    auto lr = p.at("lr").get<double>();
    EXPECT_TRUE(lr >= 1e-4 && lr <= 1e-2);
    EXPECT_TRUE(p.at("opt") == "sgd" || p.at("opt") == "adam");
    EXPECT_EQ(p.at("c"), 1);
  }
}

TEST(rng, between_covers_every_value_of_a_small_range) {
  rng r{1};
  int seen[3] = {0, 0, 0};
  for (int i = 0; i < 300; ++i)
    ++seen[r.between(0, 2)];
  for (int n : seen)
    EXPECT_GT(n, 50);
}

} // namespace
} // namespace det::policy
