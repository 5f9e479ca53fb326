// policy/search_preview: the summary `det preview-search` prints.

#include "policy/search_preview.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

namespace det::policy {
namespace {

using json = nlohmann::json;

json config(const char* searcher, json hps = json::object()) {
  return {{"searcher", json::parse(searcher)}, {"hyperparameters", hps}};
}

int64_t total(const json& summary) {
  int64_t n = 0;
  for (const auto& t : summary["trials"])
    n += t["count"].get<int64_t>();
  return n;
}

TEST(search_preview, a_grid_trains_every_point_to_max_length) {
  auto hps = json::parse(R"({"lr": {"type": "double", "minval": 0,
                             "maxval": 1, "count": 3},
                             "b": {"type": "categorical", "vals": [1, 2]}})");
  auto s = preview_search(config(R"({"name": "grid", "metric": "loss",
                                     "max_length": {"batches": 200}})",
                                 hps),
                          7);
  ASSERT_TRUE(s) << render(s.error());
  EXPECT_EQ((*s)["config"]["name"], "grid");
  ASSERT_EQ((*s)["trials"].size(), 1u) << s->dump();
  EXPECT_EQ((*s)["trials"][0]["count"], 6);
  EXPECT_EQ((*s)["trials"][0]["unit"],
            (json{{"name", "batches"}, {"value", 200}, {"maxLength", false}}));
}

TEST(search_preview, asha_stops_most_trials_at_its_lower_rungs) {
  auto s = preview_search(
      config(R"({"name": "adaptive_asha", "metric": "loss",
                 "max_length": {"batches": 1000}, "max_trials": 16,
                 "max_rungs": 3, "divisor": 4, "mode": "standard"})",
             json::parse(R"({"lr": {"type": "double", "minval": 0,
                             "maxval": 1}})")),
      3);
  ASSERT_TRUE(s) << render(s.error());
  const auto& trials = (*s)["trials"];
  ASSERT_GE(trials.size(), 2u) << s->dump();
  EXPECT_EQ(total(*s), 16);
  // Lengths increase down the list, fewer trials reach each longer one,
  // and the longest is max_length.
  for (size_t i = 1; i < trials.size(); ++i) {
    EXPECT_GT(trials[i]["unit"]["value"], trials[i - 1]["unit"]["value"]);
  }
  EXPECT_EQ(trials.back()["unit"]["value"], 1000);
  EXPECT_LT(trials.back()["count"], trials.front()["count"]);
  // The same seed previews the same search.
  EXPECT_EQ(
      *s, *preview_search(config(R"({"name": "adaptive_asha", "metric": "loss",
                               "max_length": {"batches": 1000},
                               "max_trials": 16, "max_rungs": 3,
                               "divisor": 4, "mode": "standard"})",
                                 json::parse(R"({"lr": {"type": "double",
                                           "minval": 0, "maxval": 1}})")),
                          3));
}

TEST(search_preview, a_trial_without_max_length_trains_to_completion) {
  auto s = preview_search(config(R"({"name": "random", "metric": "loss",
                                     "max_trials": 4})"),
                          1);
  ASSERT_TRUE(s) << render(s.error());
  ASSERT_EQ((*s)["trials"].size(), 1u) << s->dump();
  EXPECT_EQ((*s)["trials"][0]["count"], 4);
  EXPECT_EQ((*s)["trials"][0]["unit"]["maxLength"], true);
}

TEST(search_preview, a_bad_config_is_refused_naming_the_field) {
  auto missing = preview_search(json{{"hyperparameters", json::object()}}, 1);
  ASSERT_FALSE(missing);
  EXPECT_EQ(code_of(missing.error()), errc::invalid_argument);
  EXPECT_NE(render(missing.error()).find("searcher"), std::string::npos);
  auto bad =
      preview_search(config(R"({"name": "nonesuch", "metric": "x"})"), 1);
  ASSERT_FALSE(bad);
  EXPECT_EQ(code_of(bad.error()), errc::invalid_argument);
  EXPECT_NE(render(bad.error()).find("name"), std::string::npos)
      << render(bad.error());
  EXPECT_FALSE(preview_search(json::array(), 1));
}

} // namespace
} // namespace det::policy
