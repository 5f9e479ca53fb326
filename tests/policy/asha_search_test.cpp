#include "policy/searcher.hpp"

#include "searcher_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace det::policy {
namespace {

using namespace det::policy::test;
using json = nlohmann::json;

const json space =
    json::parse(R"({"x": {"type": "double", "minval": 0, "maxval": 1}})");

/// Loss falls with training and is lowest for x near 0.3.
double loss(const json& hp, uint64_t length) {
  return std::fabs(hp.at("x").get<double>() - 0.3)
         + 1.0 / static_cast<double>(length);
}

std::string asha(int max_trials, int max_length, const char* mode,
                 int divisor = 4, int max_concurrent = 16) {
  return R"({"name": "adaptive_asha", "metric": "loss", "max_trials": )"
         + std::to_string(max_trials) + R"(, "max_length": )"
         + std::to_string(max_length) + R"(, "mode": ")" + mode
         + R"(", "divisor": )" + std::to_string(divisor)
         + R"(, "max_concurrent_trials": )" + std::to_string(max_concurrent)
         + "}";
}

/// First-rung lengths of the start ops: one per bracket.
std::set<uint64_t> first_rungs(searcher& s) {
  std::set<uint64_t> out;
  for (const auto& op : s.start())
    if (auto* t = std::get_if<train_trial>(&op))
      out.insert(t->length);
  return out;
}

struct bracket_case {
  const char* name;
  int max_trials, max_length;
  const char* mode;
  std::set<uint64_t> rung0_lengths;
};

class asha_brackets : public ::testing::TestWithParam<bracket_case> {};

TEST_P(asha_brackets, follow_the_mode) {
  const auto& c = GetParam();
  auto s = make(config_of(asha(c.max_trials, c.max_length, c.mode).c_str()),
                space, 1);
  EXPECT_EQ(first_rungs(*s), c.rung0_lengths);
}

INSTANTIATE_TEST_SUITE_P(
    table, asha_brackets,
    ::testing::Values(
        // rungs = min(5, log4(64)+1 = 4, log4(16)+1 = 3) = 3
        bracket_case{"aggressive_is_one_bracket_of_all_rungs",
                     16,
                     64,
                     "aggressive",
                     {4}},
        bracket_case{
            "standard_keeps_the_upper_half", 16, 64, "standard", {4, 16}},
        bracket_case{"conservative_has_a_bracket_per_rung_count",
                     16,
                     64,
                     "conservative",
                     {4, 16, 64}},
        // rungs = min(5, log4(1000)+1 = 5, log4(1000)+1 = 5) = 5
        bracket_case{
            "rungs_capped_by_max_rungs", 1000, 1000, "aggressive", {3}},
        bracket_case{"one_trial_is_one_rung", 1, 100, "standard", {100}}),
    [](const auto& tc) { return std::string{tc.param.name}; });

TEST(asha, promotes_a_result_in_the_top_quarter_at_once) {
  // divisor 2, 4 trials, lengths 1, 2, 4.
  auto s = make(config_of(asha(4, 4, "aggressive", 2).c_str()), space, 1);
  EXPECT_EQ(s->start().size(), 8u);
  EXPECT_TRUE(s->validation_reported(1, 1, 0.9).empty()) << "1 seen: 0 owed";
  auto ops = s->validation_reported(2, 1, 0.5);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(to_string(ops[0]), "train(2, 2)") << "2 seen: the best goes up";
  EXPECT_TRUE(s->validation_reported(3, 1, 0.95).empty());
  ops = s->validation_reported(4, 1, 0.8);
  ASSERT_GE(ops.size(), 1u);
  EXPECT_EQ(to_string(ops[0]), "train(4, 2)")
      << "4 seen: a second promotion is owed, to the best not yet promoted";
}

TEST(asha, larger_is_better_flips_the_ranking) {
  auto c = config_of(asha(4, 4, "aggressive", 2).c_str());
  c.smaller_is_better = false;
  auto s = make(c, space, 1);
  (void)s->start();
  (void)s->validation_reported(1, 1, 0.9);
  auto ops = s->validation_reported(2, 1, 0.5);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(to_string(ops[0]), "train(1, 2)");
}

TEST(asha, ignores_validations_before_the_rung_length) {
  auto s = make(config_of(asha(4, 4, "aggressive", 2).c_str()), space, 1);
  (void)s->start();
  EXPECT_TRUE(s->validation_reported(1, 0, 0.1).empty());
  (void)s->validation_reported(1, 1, 0.9);
  (void)s->validation_reported(2, 1, 0.5);
  EXPECT_TRUE(s->validation_reported(2, 1, 0.1).empty()) << "counted once";
}

TEST(asha, a_full_search_creates_max_trials_and_closes_every_one) {
  for (const char* mode : {"aggressive", "standard", "conservative"}) {
    auto s = make(config_of(asha(64, 256, mode, 4, 8).c_str()), space, 42);
    auto run = drive(*s, loss);
    EXPECT_EQ(run.hparams.size(), 64u) << mode;
    EXPECT_EQ(run.closed.size(), 64u) << mode;
    EXPECT_EQ(run.shutdowns, 1) << mode;
    EXPECT_FALSE(run.failure);
    EXPECT_DOUBLE_EQ(s->progress(), 1.0);
    auto full = std::count_if(run.trained.begin(), run.trained.end(),
                              [](const auto& kv) { return kv.second == 256; });
    EXPECT_GE(full, 1) << mode;
    EXPECT_LT(full, 64) << mode << ": it stopped some trials early";
  }
}

TEST(asha, trains_the_best_configuration_to_max_length) {
  auto s = make(config_of(asha(64, 256, "aggressive").c_str()), space, 42);
  auto run = drive(*s, loss);
  auto best = std::min_element(run.hparams.begin(), run.hparams.end(),
                               [](const auto& a, const auto& b) {
                                 return loss(a.second, 1) < loss(b.second, 1);
                               });
  EXPECT_EQ(run.trained[best->first], 256u);
}

TEST(asha, limits_open_trials_to_max_concurrent) {
  auto s = make(config_of(asha(64, 256, "aggressive", 4, 5).c_str()), space, 1);
  auto start = s->start();
  EXPECT_EQ(std::count_if(start.begin(), start.end(),
                          [](const searcher_op& op) {
                            return std::holds_alternative<create_trial>(op);
                          }),
            5);
}

TEST(asha, completes_when_trials_exit_early) {
  auto s = make(config_of(asha(32, 64, "standard").c_str()), space, 9);
  auto run = drive(*s, loss, [](request_id id, uint64_t length) {
    return id % 5 == 0 || (id % 7 == 0 && length > 4);
  });
  EXPECT_EQ(run.hparams.size(), 32u);
  EXPECT_EQ(run.closed.size() + run.exited.size(), 32u);
  EXPECT_EQ(run.shutdowns, 1);
  for (auto id : run.exited)
    EXPECT_EQ(run.closed.count(id), 0u) << "an exited trial is not closed";
}

TEST(asha, fails_the_experiment_when_every_trial_exits) {
  auto s = make(config_of(asha(8, 16, "aggressive").c_str()), space, 9);
  auto run = drive(*s, loss, [](request_id, uint64_t) { return true; });
  EXPECT_EQ(run.shutdowns, 1);
  EXPECT_TRUE(run.failure);
}

TEST(asha, is_deterministic_for_a_seed) {
  auto c = config_of(asha(32, 64, "standard").c_str());
  EXPECT_EQ(drive(*make(c, space, 3), loss).ops,
            drive(*make(c, space, 3), loss).ops);
}

TEST(asha, resumes_from_saved_state_with_the_same_decisions) {
  auto c = config_of(asha(32, 64, "standard", 4, 4).c_str());
  auto whole = make(c, space, 3);
  auto expected = drive(*whole, loss).ops;

  // The same run, interrupted after 30 inputs and resumed from JSON text.
  auto first = make(c, space, 3);
  std::deque<searcher_op> work;
  std::vector<std::string> ops;
  std::map<request_id, json> hp;
  auto push = [&](std::vector<searcher_op> v) {
    for (auto& op : v) {
      ops.push_back(to_string(op));
      work.push_back(std::move(op));
    }
  };
  push(first->start());
  searcher* s = first.get();
  std::unique_ptr<searcher> second;
  for (int step = 0; !work.empty(); ++step) {
    if (step == 30) {
      second = make(c, space, 0);
      ASSERT_FALSE(second->load(json::parse(s->save().dump())));
      s = second.get();
    }
    auto op = work.front();
    work.pop_front();
    if (auto* cr = std::get_if<create_trial>(&op))
      hp[cr->id] = cr->hparams;
    else if (auto* t = std::get_if<train_trial>(&op))
      push(
          s->validation_reported(t->id, t->length, loss(hp[t->id], t->length)));
  }
  EXPECT_EQ(ops, expected);
}

} // namespace
} // namespace det::policy
