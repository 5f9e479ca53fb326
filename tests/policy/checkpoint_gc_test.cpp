// The checkpoint GC choice (policy/checkpoint_gc.hpp): what each of
// save_trial_latest, save_trial_best and save_experiment_best keeps, that
// running trials are never touched, and the ties and missing metrics.

#include "policy/checkpoint_gc.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace det::policy;

namespace {

gc_checkpoint ck(const std::string& uuid, int64_t steps,
                 std::optional<double> metric = std::nullopt) {
  return {uuid, steps, steps * 10, metric};
}

gc_policy keep(int64_t exp_best, int64_t trial_best, int64_t trial_latest,
               bool smaller = true) {
  return {exp_best, trial_best, trial_latest, smaller};
}

using uuids = std::vector<std::string>;

} // namespace

TEST(checkpoint_gc, the_default_keeps_each_ended_trials_best_and_latest) {
  gc_trial t{
      1,
      true,
      {ck("a", 10, 0.5), ck("b", 20, 0.2), ck("c", 30, 0.4), ck("d", 40, 0.3)}};
  EXPECT_EQ(checkpoints_to_delete({t}, keep(0, 1, 1)), (uuids{"a", "c"}));
  // Larger is better: a is the best.
  EXPECT_EQ(checkpoints_to_delete({t}, keep(0, 1, 1, false)),
            (uuids{"b", "c"}));
}

TEST(checkpoint_gc, zero_everywhere_deletes_every_checkpoint_of_ended_trials) {
  gc_trial ended{1, true, {ck("a", 10, 0.5), ck("b", 20)}};
  gc_trial running{2, false, {ck("r1", 10, 0.1), ck("r2", 20, 0.9)}};
  EXPECT_EQ(checkpoints_to_delete({ended, running}, keep(0, 0, 0)),
            (uuids{"a", "b"}));
}

TEST(checkpoint_gc, save_trial_latest_keeps_the_n_latest_by_steps) {
  gc_trial t{1, true, {ck("a", 10), ck("b", 30), ck("c", 20), ck("d", 40)}};
  EXPECT_EQ(checkpoints_to_delete({t}, keep(0, 0, 2)), (uuids{"a", "c"}));
  EXPECT_TRUE(checkpoints_to_delete({t}, keep(0, 0, 99)).empty());
}

TEST(checkpoint_gc, save_experiment_best_keeps_the_best_across_trials) {
  gc_trial t1{1, true, {ck("a", 10, 0.9), ck("b", 20, 0.1)}};
  gc_trial t2{2, true, {ck("c", 10, 0.2), ck("d", 20, 0.8)}};
  EXPECT_EQ(checkpoints_to_delete({t1, t2}, keep(2, 0, 0)), (uuids{"a", "d"}));
  EXPECT_EQ(checkpoints_to_delete({t1, t2}, keep(1, 0, 0)),
            (uuids{"a", "c", "d"}));
}

TEST(checkpoint_gc, a_running_trials_better_checkpoints_push_an_ended_one_out) {
  gc_trial ended{1, true, {ck("a", 10, 0.5), ck("b", 20, 0.6)}};
  gc_trial running{2, false, {ck("r", 10, 0.1)}};
  // Experiment best 1 is r (running, never deleted); the ended trial keeps
  // nothing of its own.
  EXPECT_EQ(checkpoints_to_delete({ended, running}, keep(1, 0, 0)),
            (uuids{"a", "b"}));
  EXPECT_EQ(checkpoints_to_delete({ended, running}, keep(2, 0, 0)),
            (uuids{"b"}));
}

TEST(checkpoint_gc, checkpoints_without_a_metric_rank_only_as_latest) {
  gc_trial t{1, true, {ck("a", 10), ck("b", 20, NAN), ck("c", 30)}};
  EXPECT_EQ(checkpoints_to_delete({t}, keep(3, 3, 0)), (uuids{"a", "b", "c"}));
  EXPECT_EQ(checkpoints_to_delete({t}, keep(3, 3, 1)), (uuids{"a", "b"}));
}

TEST(checkpoint_gc, equal_metrics_prefer_the_later_checkpoint) {
  gc_trial t{1, true, {ck("a", 10, 0.5), ck("b", 20, 0.5)}};
  EXPECT_EQ(checkpoints_to_delete({t}, keep(0, 1, 0)), (uuids{"a"}));
}
