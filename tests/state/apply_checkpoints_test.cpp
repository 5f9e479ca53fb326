// apply() for checkpoint deletion (checkpoints_deletion_requested,
// checkpoints_deleted) and the searcher metric a checkpoint gets from the
// validation at its step, whichever of the two is reported first.

#include "state_fixture.hpp"

namespace det::state::test {

namespace {

class apply_checkpoints : public state_fixture {
protected:
  void SetUp() override {
    pool();
    agent("a1", 2);
    experiment(1, 1, 1);
    experiment(2, 1, 1);
    trial(1, 1);
    trial(2, 2);
    place(1, "1.1", {{"a1", {0}}});
    place(2, "2.1", {{"a1", {1}}});
  }

  void validation(int64_t trial, const std::string& alloc, int64_t step,
                  double loss) {
    ok(trial_metrics_reported{
        trial, alloc, "validation", step, {{"loss", loss}}, 700});
  }

  const checkpoint_info& ck(int64_t trial, size_t i) {
    return t(trial).checkpoints.at(i);
  }
};

} // namespace

TEST_F(apply_checkpoints, a_checkpoint_takes_the_metric_validated_at_its_step) {
  validation(1, "1.1", 10, 0.5); // before the checkpoint
  ok(trial_checkpointed{1, "ck-10", 10, {}, "1.1", 600});
  ok(trial_checkpointed{1, "ck-20", 20, {}, "1.1", 610});
  validation(1, "1.1", 20, 0.25); // after it
  ok(trial_checkpointed{1, "ck-30", 30, {}, "1.1", 620});
  EXPECT_EQ(ck(1, 0).searcher_metric, 0.5);
  EXPECT_EQ(ck(1, 1).searcher_metric, 0.25);
  EXPECT_FALSE(ck(1, 2).searcher_metric);
  EXPECT_EQ(ck(1, 0).state, "completed");
}

TEST_F(apply_checkpoints, deletion_moves_completed_to_deleting_to_deleted) {
  ok(trial_checkpointed{1, "ck-10", 10, {}, "1.1", 600});
  ok(trial_checkpointed{1, "ck-20", 20, {}, "1.1", 610});
  ok(checkpoints_deletion_requested{1, {"ck-10", "ck-20"}, "gc", "", 800});
  EXPECT_EQ(ck(1, 0).state, "deleting");
  EXPECT_EQ(ck(1, 1).state, "deleting");
  EXPECT_EQ(t(1).latest_checkpoint->state, "deleting");
  EXPECT_TRUE(has(refused(checkpoints_deletion_requested{
                      1, {"ck-10"}, "user", "admin", 810}),
                  "is deleting, not completed"));
  ok(checkpoints_deleted{1, {"ck-20"}, 900});
  EXPECT_EQ(ck(1, 1).state, "deleted");
  EXPECT_EQ(t(1).latest_checkpoint->state, "deleted");
  EXPECT_EQ(ck(1, 0).state, "deleting");
  EXPECT_TRUE(has(refused(checkpoints_deleted{1, {"ck-20"}, 910}),
                  "is deleted, not deleting"));
}

TEST_F(apply_checkpoints, a_partially_deleted_checkpoint_may_be_deleted_whole) {
  ok(trial_checkpointed{
      1, "ck-10", 10, {{"resources", {{"a", 1}, {"b", 2}}}}, "1.1", 600});
  ok(checkpoint_files_removal_requested{1, {"ck-10"}, {"a"}, "admin", 700});
  ok(checkpoint_files_removed{1, "ck-10", {{"b", 2}}, 710});
  ASSERT_EQ(ck(1, 0).state, "partially_deleted");
  ok(checkpoints_deletion_requested{1, {"ck-10"}, "user", "admin", 800});
  EXPECT_EQ(ck(1, 0).state, "deleting");
}

TEST_F(apply_checkpoints, uuids_of_another_experiment_or_repeated_are_refused) {
  ok(trial_checkpointed{1, "ck-1", 10, {}, "1.1", 600});
  ok(trial_checkpointed{2, "ck-2", 10, {}, "2.1", 600});
  EXPECT_TRUE(
      has(refused(checkpoints_deletion_requested{1, {"ck-2"}, "gc", "", 800}),
          "is not one of experiment 1"));
  EXPECT_TRUE(has(refused(checkpoints_deletion_requested{
                      1, {"ck-1", "ck-1"}, "gc", "", 800}),
                  "listed twice"));
  EXPECT_TRUE(
      has(refused(checkpoints_deletion_requested{9, {"ck-1"}, "gc", "", 800}),
          "unknown experiment 9"));
  // All or nothing: one bad uuid leaves the good one completed.
  EXPECT_TRUE(has(refused(checkpoints_deletion_requested{
                      1, {"ck-1", "nope"}, "gc", "", 800}),
                  "'nope'"));
  EXPECT_EQ(ck(1, 0).state, "completed");
}

} // namespace det::state::test
