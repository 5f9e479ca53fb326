// apply() for metric reports of any group: a group other than training and
// validation is kept (its summary, the trial's steps) without touching the
// latest validation, the searcher or the best metric; a name the API would
// refuse is refused here too; each group's summary is upstream's
// {type, count, sum, min, max, mean, last}; it survives a snapshot.

#include "state/metric_summary.hpp"
#include "state_fixture.hpp"

namespace det::state::test {

namespace {

using nlohmann::json;

class apply_metric_groups : public state_fixture {
protected:
  void SetUp() override {
    pool();
    agent("a1", 1);
    experiment(1, 1, 1);
    trial(1, 1);
    place(1, "1.1", {{"a1", {0}}});
  }

  void report(const std::string& group, int64_t steps, json metrics) {
    ok(trial_metrics_reported{1, "1.1", group, steps, std::move(metrics), 0});
  }

  const json& summary(const std::string& group) {
    return t(1).metrics.summaries.at(group);
  }
};

TEST_F(apply_metric_groups,
       a_report_of_another_group_is_kept_without_feeding_the_searcher) {
  report("validation", 10, {{"loss", 2.0}});
  auto queued = s.experiments.at(1).searcher_inputs_queued;
  report("group_b", 30, {{"loss", 0.5}, {"x", 7}});
  const auto& m = t(1).metrics;
  EXPECT_EQ(m.steps_completed, 30);
  EXPECT_EQ(m.validation_reports, 1);
  EXPECT_EQ(m.training_reports, 0);
  EXPECT_EQ(m.latest_validation, (json{{"loss", 2.0}}));
  EXPECT_TRUE(m.latest_training.is_null());
  EXPECT_EQ(m.best_validation, 2.0);
  EXPECT_EQ(m.best_validation_steps, 10);
  EXPECT_EQ(s.experiments.at(1).searcher_inputs_queued, queued);
  EXPECT_EQ(summary("group_b")["loss"]["last"], 0.5);
  EXPECT_EQ(summary("group_b")["x"]["count"], 1);
  EXPECT_EQ(summary("validation")["loss"]["count"], 1);
}

TEST_F(apply_metric_groups, a_group_the_api_would_refuse_is_refused) {
  for (const std::string& bad :
       {std::string{}, std::string{"a.b"}, std::string{"tab\there"},
        std::string{"nul\0x", 5}, std::string{"\xff\xfe"},
        std::string(256, 'g')}) {
    auto why = refused(trial_metrics_reported{1, "1.1", bad, 1, {}, 0});
    EXPECT_TRUE(has(why, "'kind'")) << why;
  }
  EXPECT_TRUE(t(1).metrics.summaries.empty());
}

TEST_F(apply_metric_groups, numbers_are_summarized_as_upstream_does) {
  for (int i = 0; i < 10; ++i)
    report("training", i + 1, {{"x", 1.0 + i}, {"n", i}});
  const auto& x = summary("training")["x"];
  EXPECT_EQ(x["type"], "number");
  EXPECT_EQ(x["count"], 10);
  EXPECT_EQ(x["min"], 1.0);
  EXPECT_EQ(x["max"], 10.0);
  EXPECT_EQ(x["sum"], 55.0);
  EXPECT_EQ(x["mean"], 5.5);
  EXPECT_EQ(x["last"], 10.0);
  EXPECT_EQ(summary("training")["n"]["min"], 0.0);
}

TEST_F(apply_metric_groups, other_values_keep_their_type_and_last_value_only) {
  report("group_b", 1,
         {{"name", "a"},
          {"at", "2024-05-01T10:20:30.5+00:00"},
          {"ok", true},
          {"shape", json::array({1, 2})},
          {"nothing", nullptr},
          {"mixed", 1.0}});
  report("group_b", 2, {{"mixed", "now text"}, {"ok", false}});
  const auto& g = summary("group_b");
  EXPECT_EQ(g["name"], (json{{"type", "string"}, {"last", "a"}}));
  EXPECT_EQ(g["at"]["type"], "date");
  EXPECT_EQ(g["ok"], (json{{"type", "boolean"}, {"last", false}}));
  EXPECT_EQ(g["shape"]["type"], "array");
  EXPECT_EQ(g["nothing"]["type"], "null");
  // A metric whose type changes is a string from then on, without numbers.
  EXPECT_EQ(g["mixed"], (json{{"type", "string"}, {"last", "now text"}}));
  // One a report leaves out keeps its last value.
  EXPECT_EQ(g["name"]["last"], "a");
}

TEST_F(apply_metric_groups, non_finite_numbers_stay_json_in_the_summary) {
  report("validation", 1, {{"loss", 1.0}});
  report("validation", 2, {{"loss", "Infinity"}});
  report("validation", 3, {{"loss", "NaN"}});
  const auto& loss = summary("validation")["loss"];
  EXPECT_EQ(loss["type"], "number");
  EXPECT_EQ(loss["count"], 3);
  EXPECT_EQ(loss["min"], "NaN");
  EXPECT_EQ(loss["sum"], "NaN");
  EXPECT_EQ(loss["last"], "NaN");
  auto back = from_snapshot(json::parse(to_snapshot(s).dump()));
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_TRUE(*back == s);
}

TEST_F(apply_metric_groups, profiler_samples_neither_summarize_nor_advance) {
  report("gpu", 500, {{"agent", {{"util", 0.5}}}});
  EXPECT_EQ(t(1).metrics.steps_completed, 0);
  EXPECT_TRUE(t(1).metrics.summaries.empty());
}

TEST_F(apply_metric_groups,
       a_trial_keeps_summaries_of_a_bounded_number_of_groups) {
  for (size_t i = 0; i < max_summarized_groups + 5; ++i)
    report("g" + std::to_string(i), 1, {{"x", 1}});
  EXPECT_EQ(t(1).metrics.summaries.size(), max_summarized_groups);
  // Those it keeps go on being summarized.
  report("g0", 2, {{"x", 3}});
  EXPECT_EQ(summary("g0")["x"]["count"], 2);
  EXPECT_FALSE(t(1).metrics.summaries.contains(
      "g" + std::to_string(max_summarized_groups)));
}

TEST_F(apply_metric_groups,
       summaries_survive_a_snapshot_and_older_ones_lack_them) {
  report("group_b", 5, {{"loss", 0.25}});
  report("training", 5, {{"loss", 0.5}});
  auto j = to_snapshot(s);
  auto back = from_snapshot(j);
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_TRUE(*back == s);
  // A snapshot written before summaries existed reads as none so far.
  for (auto& trial : j["trials"])
    trial["metrics"].erase("summaries");
  auto older = from_snapshot(j);
  ASSERT_TRUE(older) << render(older.error());
  EXPECT_TRUE(older->trials.at(1).metrics.summaries.empty());
  EXPECT_EQ(older->trials.at(1).metrics.latest_training, (json{{"loss", 0.5}}));
}

} // namespace

} // namespace det::state::test
