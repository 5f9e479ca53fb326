#include "policy/searcher.hpp"

#include "messages/errc.hpp"
#include "searcher_test_support.hpp"

#include <gtest/gtest.h>

namespace det::policy {
namespace {

using namespace det::policy::test;
using json = nlohmann::json;

const json one_double = json::parse(
    R"({"x": {"type": "double", "minval": 0, "maxval": 1, "count": 3}})");

double by_x(const json& hp, uint64_t) {
  return hp.value("x", 0.0);
}

TEST(single_searcher, trains_one_trial_to_max_length_then_shuts_down) {
  auto s = make(config_of(R"({"name": "single", "metric": "loss",
                              "max_length": {"batches": 100}})"),
                json{{"lr", 0.1}}, 1);
  auto start = s->start();
  ASSERT_EQ(start.size(), 2u);
  EXPECT_EQ(to_string(start[1]), "train(1, 100)");
  EXPECT_EQ(std::get<create_trial>(start[0]).hparams, (json{{"lr", 0.1}}));
  EXPECT_TRUE(s->validation_reported(1, 50, 0.3).empty())
      << "an intermediate validation changes nothing";
  auto done = s->validation_reported(1, 100, 0.2);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(to_string(done[0]), "close(1)");
  EXPECT_EQ(to_string(done[1]), "shutdown");
  EXPECT_TRUE(s->shut_down());
  EXPECT_DOUBLE_EQ(s->progress(), 1.0);
}

TEST(single_searcher, fails_the_experiment_when_its_trial_exits_early) {
  auto s = make(config_of(R"({"name": "single", "max_length": 10})"), {}, 1);
  (void)s->start();
  auto ops = s->trial_exited_early(1);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(to_string(ops[0]), "shutdown(failure)");
}

TEST(searcher, ignores_reports_for_unknown_or_closed_trials) {
  auto s = make(config_of(R"({"name": "single", "max_length": 10})"), {}, 1);
  (void)s->start();
  EXPECT_TRUE(s->validation_reported(99, 10, 0.1).empty());
  (void)s->validation_reported(1, 10, 0.1);
  EXPECT_TRUE(s->validation_reported(1, 10, 0.1).empty());
  EXPECT_TRUE(s->trial_exited_early(1).empty());
  EXPECT_TRUE(s->start().empty()) << "start twice is a no-op";
}

TEST(grid_searcher, runs_one_trial_per_grid_point) {
  auto s = make(config_of(R"({"name": "grid", "metric": "loss",
                              "max_length": 10})"),
                one_double, 1);
  auto run = drive(*s, by_x);
  ASSERT_EQ(run.hparams.size(), 3u);
  EXPECT_EQ(run.hparams[1], (json{{"x", 0.0}}));
  EXPECT_EQ(run.hparams[2], (json{{"x", 0.5}}));
  EXPECT_EQ(run.hparams[3], (json{{"x", 1.0}}));
  EXPECT_EQ(run.closed.size(), 3u);
  EXPECT_EQ(run.shutdowns, 1);
  EXPECT_FALSE(run.failure);
}

TEST(grid_searcher, keeps_at_most_max_concurrent_trials_open) {
  auto s = make(config_of(R"({"name": "grid", "max_length": 10,
                              "max_concurrent_trials": 2})"),
                one_double, 1);
  auto start = s->start();
  EXPECT_EQ(start.size(), 4u) << "two creates and their trains";
  auto next = s->validation_reported(1, 10, 0.0);
  ASSERT_EQ(next.size(), 3u);
  EXPECT_EQ(to_string(next[0]), "close(1)");
  EXPECT_TRUE(std::holds_alternative<create_trial>(next[1]));
  EXPECT_EQ(std::get<create_trial>(next[1]).id, 3u);
}

TEST(grid_searcher, is_rejected_without_counts) {
  auto c = config_of(R"({"name": "grid", "max_length": 10})");
  auto s = make_searcher(
      c, json{{"x", {{"type", "double"}, {"minval", 0}, {"maxval", 1}}}}, 1);
  ASSERT_FALSE(s);
  EXPECT_EQ(code_of(s.error()), errc::invalid_argument);
}

TEST(random_searcher, creates_max_trials_and_replaces_exited_ones) {
  auto s = make(config_of(R"({"name": "random", "max_length": 5,
                              "max_trials": 6, "max_concurrent_trials": 2})"),
                one_double, 3);
  auto run = drive(*s, by_x, [](request_id id, uint64_t) { return id == 2; });
  EXPECT_EQ(run.hparams.size(), 6u);
  EXPECT_EQ(run.closed.size(), 5u);
  EXPECT_EQ(run.exited, (std::set<request_id>{2}));
  EXPECT_EQ(run.shutdowns, 1);
  EXPECT_FALSE(run.failure) << "one trial finished";
}

TEST(random_searcher, is_deterministic_for_a_seed) {
  auto c = config_of(R"({"name": "random", "max_length": 5, "max_trials": 8})");
  auto a = drive(*make(c, one_double, 11), by_x);
  auto b = drive(*make(c, one_double, 11), by_x);
  auto other = drive(*make(c, one_double, 12), by_x);
  EXPECT_EQ(a.ops, b.ops);
  EXPECT_NE(a.ops, other.ops);
}

TEST(random_searcher, resumes_from_saved_state_exactly) {
  auto c = config_of(R"({"name": "random", "max_length": 5, "max_trials": 4,
                         "max_concurrent_trials": 1})");
  auto reference = make(c, one_double, 5);
  auto original = make(c, one_double, 5);
  auto expected = drive(*reference, by_x);
  (void)original->start();
  (void)original->validation_reported(1, 5, 0.1);
  auto saved = original->save();
  auto restored = make(c, one_double, 999); // the seed comes from the state
  ASSERT_FALSE(restored->load(json::parse(saved.dump())));
  EXPECT_EQ(restored->save(), saved);
  auto more = restored->validation_reported(2, 5, 0.2);
  ASSERT_FALSE(more.empty());
  // The third trial's create op matches the uninterrupted run.
  EXPECT_EQ(to_string(more[1]), expected.ops[6]);
}

TEST(searcher, refuses_state_saved_by_another_method) {
  auto random =
      make(config_of(R"({"name": "random", "max_length": 5})"), {}, 1);
  auto grid = make(config_of(R"({"name": "grid", "max_length": 5})"), {}, 1);
  auto err = grid->load(random->save());
  EXPECT_EQ(code_of(err), errc::corrupt_snapshot);
  EXPECT_EQ(code_of(grid->load(json{{"method", "grid"}})),
            errc::corrupt_snapshot);
}

struct bad_config_case {
  const char* name;
  const char* config;
  const char* field;
};

class bad_searcher_config : public ::testing::TestWithParam<bad_config_case> {};

TEST_P(bad_searcher_config, is_rejected_naming_the_field) {
  auto c = parse_searcher_config(json::parse(GetParam().config));
  ASSERT_FALSE(c);
  EXPECT_EQ(code_of(c.error()), errc::invalid_argument);
  EXPECT_NE(render(c.error()).find(GetParam().field), std::string::npos)
      << render(c.error());
}

INSTANTIATE_TEST_SUITE_P(
    table, bad_searcher_config,
    ::testing::Values(
        bad_config_case{"unknown_name", R"({"name": "pbt", "max_length": 1})",
                        "searcher.name"},
        bad_config_case{"asha_without_length",
                        R"({"name": "adaptive_asha", "metric": "loss"})",
                        "searcher.max_time"},
        bad_config_case{"zero_max_time",
                        R"({"name": "adaptive_asha", "metric": "loss",
                        "time_metric": "batches", "max_time": 0})",
                        "searcher.max_time"},
        bad_config_case{"zero_max_length",
                        R"({"name": "single", "max_length": 0})",
                        "searcher.max_length"},
        bad_config_case{
            "zero_max_trials",
            R"({"name": "random", "max_length": 1, "max_trials": 0})",
            "searcher.max_trials"},
        bad_config_case{"asha_without_metric",
                        R"({"name": "adaptive_asha", "max_length": 1})",
                        "searcher.metric"},
        bad_config_case{"asha_divisor_one",
                        R"({"name": "adaptive_asha", "metric": "loss",
                        "max_length": 1, "divisor": 1})",
                        "searcher.divisor"},
        bad_config_case{"unknown_mode",
                        R"({"name": "adaptive_asha", "metric": "loss",
                        "max_length": 1, "mode": "reckless"})",
                        "searcher.mode"},
        bad_config_case{
            "wrong_type",
            R"({"name": "random", "max_length": 1, "max_trials": "x"})",
            "searcher.max_trials"}),
    [](const auto& tc) { return std::string{tc.param.name}; });

TEST(parse_searcher_config, reads_the_upstream_shape_with_defaults) {
  auto c = parse_searcher_config(json::parse(R"({
    "name": "adaptive_asha", "metric": "accuracy", "smaller_is_better": false,
    "max_length": {"batches": 1000}, "max_trials": 32})"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, searcher_kind::adaptive_asha);
  EXPECT_EQ(c->max_length, 1000u);
  EXPECT_FALSE(c->smaller_is_better);
  EXPECT_EQ(c->divisor, 4);
  EXPECT_EQ(c->max_rungs, 5);
  EXPECT_EQ(c->mode, asha_mode::standard);
  EXPECT_EQ(c->max_concurrent_trials, 16);
}

TEST(parse_searcher_config, reads_the_0_38_asha_shape_with_time_metric) {
  auto c = parse_searcher_config(json::parse(R"({
    "name": "adaptive_asha", "metric": "loss", "time_metric": "batches",
    "max_time": 64, "max_trials": 4})"));
  ASSERT_TRUE(c) << render(c.error());
  EXPECT_EQ(c->max_length, 64u);
  EXPECT_EQ(c->time_metric, "batches");
}

TEST(single_searcher, without_max_length_lets_the_trial_end_itself) {
  auto s = make(config_of(R"({"name": "single", "metric": "loss"})"), {}, 1);
  auto ops = s->start();
  ASSERT_FALSE(ops.empty());
  ops = s->trial_created(1);
  // Validations at any length close nothing; the trial's exit ends it.
  EXPECT_TRUE(s->validation_reported(1, 1000000, 0.5).empty());
  ops = s->trial_exited_early(1);
  EXPECT_TRUE(s->shut_down());
}

} // namespace
} // namespace det::policy
