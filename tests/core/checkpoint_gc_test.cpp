// core/checkpoint_gc.hpp on a real cluster_state: the policy's requests
// come only for ended trials and from each experiment's own
// checkpoint_storage; deletions under way are listed with their storage
// (what a restarted master resumes); a user's deletion is checked.

#include "core/checkpoint_gc.hpp"
#include "core/experiments_parse.hpp"
#include "core/log_retention.hpp"
#include "tests/state/state_fixture.hpp"

namespace det::state::test {

namespace {

class checkpoint_gc_core : public state_fixture {
protected:
  void SetUp() override {
    pool();
    agent("a1", 4);
    add_experiment(1, {{"type", "shared_fs"},
                       {"host_path", "/tmp/x"},
                       {"save_trial_best", 0},
                       {"save_trial_latest", 1}});
    add_experiment(2, {{"type", "s3"}, {"bucket", "b"}});
    trial(1, 1);
    trial(2, 2);
    place(1, "1.1", {{"a1", {0}}});
    place(2, "2.1", {{"a1", {1}}});
    for (int step = 10; step <= 30; step += 10) {
      ok(trial_checkpointed{
          1, "t1-" + std::to_string(step), step, {}, "1.1", 600 + step});
      ok(trial_checkpointed{
          2, "t2-" + std::to_string(step), step, {}, "2.1", 600 + step});
    }
  }

  void add_experiment(int64_t id, nlohmann::json storage) {
    experiment_submitted e;
    e.experiment_id = id;
    e.pool = "default";
    e.config = {{"searcher", {{"metric", "loss"}}},
                {"checkpoint_storage", std::move(storage)}};
    ok(e);
  }

  void end_trial(int64_t id) {
    ok(trial_exited{id, std::to_string(id) + ".1", 0, "completed", 900});
  }
};

} // namespace

TEST_F(checkpoint_gc_core, nothing_is_requested_while_trials_run) {
  EXPECT_TRUE(checkpoint_gc_requests(s, 1000).empty());
  EXPECT_TRUE(pending_checkpoint_deletions(s).empty());
}

TEST_F(checkpoint_gc_core,
       an_ended_trial_loses_what_its_experiments_policy_drops) {
  end_trial(1);
  auto reqs = checkpoint_gc_requests(s, 1000);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].experiment_id, 1);
  EXPECT_EQ(reqs[0].uuids, (std::vector<std::string>{"t1-10", "t1-20"}));
  EXPECT_EQ(reqs[0].reason, "gc");
  ok(reqs[0]);
  // Recorded: not requested again, and listed with its storage.
  EXPECT_TRUE(checkpoint_gc_requests(s, 1100).empty());
  auto pending = pending_checkpoint_deletions(s);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].uuids, reqs[0].uuids);
  EXPECT_EQ(pending[0].storage["host_path"], "/tmp/x");
  EXPECT_FALSE(pending[0].experiment_deleted); // its TensorBoard files stay
  ok(checkpoints_deleted{1, reqs[0].uuids, 1200});
  EXPECT_TRUE(pending_checkpoint_deletions(s).empty());
  EXPECT_TRUE(checkpoint_gc_requests(s, 1300).empty());
}

TEST_F(checkpoint_gc_core, the_default_policy_keeps_best_and_latest) {
  // Experiment 2 names no policy: best 1 (no metric known) and latest 1.
  end_trial(2);
  auto reqs = checkpoint_gc_requests(s, 1000);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].uuids, (std::vector<std::string>{"t2-10", "t2-20"}));
}

TEST_F(checkpoint_gc_core, a_user_may_not_delete_a_running_trials_latest) {
  auto refused_latest = user_checkpoint_deletion(s, {"t1-30"}, "admin", 1000);
  ASSERT_FALSE(refused_latest);
  EXPECT_NE(render(refused_latest.error()).find("latest of trial 1"),
            std::string::npos);
  auto unknown = user_checkpoint_deletion(s, {"nope"}, "admin", 1000);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(code_of(unknown.error()), errc::not_found);
  auto both =
      user_checkpoint_deletion(s, {"t1-10", "t2-20", "t1-10"}, "admin", 1000);
  ASSERT_TRUE(both);
  ASSERT_EQ(both->size(), 2u); // one event per experiment, uuids once
  EXPECT_EQ((*both)[0].uuids, std::vector<std::string>{"t1-10"});
  EXPECT_EQ((*both)[1].uuids, std::vector<std::string>{"t2-20"});
  EXPECT_EQ((*both)[1].username, "admin");
  for (const auto& ev : *both)
    ok(ev);
  auto again = user_checkpoint_deletion(s, {"t1-10"}, "admin", 1100);
  ASSERT_FALSE(again);
  EXPECT_NE(render(again.error()).find("is deleting"), std::string::npos);
}

TEST_F(checkpoint_gc_core, a_new_policy_drops_what_it_no_longer_keeps) {
  end_trial(1);
  ok(checkpoint_gc_requests(s, 1000).at(0)); // t1-10, t1-20 go
  ok(checkpoints_deleted{1, {"t1-10", "t1-20"}, 1100});
  end_trial(2);
  ok(checkpoint_gc_requests(s, 1200).at(0)); // t2-10, t2-20 go
  // Keep nothing of experiment 1: its last checkpoint goes too.
  auto change =
      gc_policy_change(*find_experiment(s, 1), {0, 0, 0}, "admin", 1300);
  ASSERT_TRUE(change);
  ok(*change);
  EXPECT_EQ(find_experiment(s, 1)->config["checkpoint_storage"]["host_path"],
            "/tmp/x");
  auto reqs = checkpoint_gc_requests(s, 1400);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].experiment_id, 1);
  EXPECT_EQ(reqs[0].uuids, std::vector<std::string>{"t1-30"});
}

TEST_F(checkpoint_gc_core, a_policy_change_names_a_bad_field) {
  auto field_of = [](const nlohmann::json& counts) {
    auto parsed = parse_gc_counts_edit(counts);
    return parsed ? std::string{} : render(parsed.error());
  };
  EXPECT_NE(
      field_of({{"saveTrialBest", -1}}).find("checkpointStorage.saveTrialBest"),
      std::string::npos);
  EXPECT_NE(field_of({{"saveAll", 1}}).find("checkpointStorage.saveAll"),
            std::string::npos);
  EXPECT_NE(field_of({{"saveTrialLatest", "2"}})
                .find("checkpointStorage.saveTrialLatest"),
            std::string::npos);
  EXPECT_NE(field_of(nlohmann::json::array()).find("checkpointStorage"),
            std::string::npos);
  // Only what is given changes; the counts it has already record nothing.
  const auto& e = *find_experiment(s, 1);
  auto kept = parse_gc_counts_edit(
      {{"saveTrialLatest", 1}, {"saveTrialBest", nullptr}});
  ASSERT_TRUE(kept);
  EXPECT_FALSE(kept->save_trial_best);
  EXPECT_FALSE(gc_policy_change(e, *kept, "admin", 1));
  auto more = gc_policy_change(e, {std::nullopt, 3, std::nullopt}, "admin", 1);
  ASSERT_TRUE(more);
  EXPECT_EQ(more->save_trial_best, 3);
  EXPECT_EQ(more->save_trial_latest, 1);
}

TEST_F(checkpoint_gc_core,
       a_deleted_experiments_checkpoints_are_still_deleted) {
  end_trial(1);
  ok(checkpoints_deletion_requested{
      1, {"t1-10", "t1-20", "t1-30"}, "delete", "admin", 1000});
  ok(experiment_state_changed{1, "COMPLETED", "", 1001});
  ok(experiment_deleted{1, "admin", 1002});
  // The experiment is gone; its deletion is pending with its storage.
  auto pending = pending_checkpoint_deletions(s);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].experiment_id, 1);
  EXPECT_EQ(pending[0].uuids.size(), 3u);
  EXPECT_EQ(pending[0].storage["host_path"], "/tmp/x");
  // Its TensorBoard files go with them.
  EXPECT_TRUE(pending[0].experiment_deleted);
  EXPECT_FALSE(refused(checkpoints_deleted{1, {"nope"}, 1100}).empty());
  ok(checkpoints_deleted{1, {"t1-10", "t1-20", "t1-30"}, 1100});
  EXPECT_TRUE(pending_checkpoint_deletions(s).empty());
  EXPECT_TRUE(s.orphan_checkpoints.empty());
}

TEST_F(checkpoint_gc_core, a_trials_logs_expire_days_after_it_ended) {
  constexpr int64_t day = int64_t{86400} * 1000 * 1000;
  end_trial(1);
  auto ended = find_trial(s, 1)->ended_at_us;
  ASSERT_GT(ended, 0);
  // No setting: kept for ever.
  EXPECT_TRUE(trials_with_expired_logs(s, ended + 1000 * day).empty());
  auto set = log_retention_change(s, 1, std::nullopt, 2, "admin", 1000);
  ASSERT_TRUE(set);
  EXPECT_TRUE(set->trial_ids.empty());
  ok(*set);
  EXPECT_EQ(find_trial(s, 1)->log_retention_days, 2);
  EXPECT_TRUE(trials_with_expired_logs(s, ended + 2 * day - 1).empty());
  EXPECT_EQ(trials_with_expired_logs(s, ended + 2 * day),
            std::vector<int64_t>{1});
  // Trial 2 runs: its logs stay whatever its setting.
  ok(*log_retention_change(s, 0, 2, 0, "admin", 1100));
  EXPECT_EQ(trials_with_expired_logs(s, ended + 2 * day),
            std::vector<int64_t>{1});
  // -1: for ever again.
  ok(*log_retention_change(s, 0, 1, -1, "admin", 1200));
  EXPECT_TRUE(trials_with_expired_logs(s, ended + 1000 * day).empty());
}

TEST_F(checkpoint_gc_core, a_log_retention_names_what_is_wrong) {
  auto bad_days = log_retention_change(s, 1, std::nullopt, -2, "admin", 1);
  ASSERT_FALSE(bad_days);
  EXPECT_NE(render(bad_days.error()).find("numDays"), std::string::npos);
  EXPECT_FALSE(log_retention_change(s, 1, std::nullopt, 32768, "admin", 1));
  auto no_trial = log_retention_change(s, 0, 42, 1, "admin", 1);
  ASSERT_FALSE(no_trial);
  EXPECT_EQ(code_of(no_trial.error()), errc::not_found);
  auto no_exp = log_retention_change(s, 42, std::nullopt, 1, "admin", 1);
  ASSERT_FALSE(no_exp);
  EXPECT_EQ(code_of(no_exp.error()), errc::not_found);
}

TEST(gc_policy_of, reads_the_storage_and_searcher_sections_or_their_defaults) {
  experiment_info e;
  e.config = {{"checkpoint_storage",
               {{"save_experiment_best", 2}, {"save_trial_best", 0}}},
              {"searcher", {{"smaller_is_better", false}}}};
  auto p = gc_policy_of(e);
  EXPECT_EQ(p.save_experiment_best, 2);
  EXPECT_EQ(p.save_trial_best, 0);
  EXPECT_EQ(p.save_trial_latest, 1);
  EXPECT_FALSE(p.smaller_is_better);
  // Sections of the wrong type, or a config that is not an object, are
  // read as absent: the defaults.
  for (const auto& config :
       {nlohmann::json{{"checkpoint_storage", "x"}, {"searcher", 3}},
        nlohmann::json::array(), nlohmann::json::object()}) {
    e.config = config;
    p = gc_policy_of(e);
    EXPECT_EQ(p.save_experiment_best, 0) << config;
    EXPECT_EQ(p.save_trial_best, 1) << config;
    EXPECT_EQ(p.save_trial_latest, 1) << config;
    EXPECT_TRUE(p.smaller_is_better) << config;
  }
}

// Experiments without a completed checkpoint are passed over before their
// policy is read; one with checkpoints still gets its request.
TEST_F(checkpoint_gc_core, experiments_without_checkpoints_ask_for_nothing) {
  for (int64_t id = 3; id < 50; ++id) {
    add_experiment(id, {{"type", "shared_fs"}, {"host_path", "/tmp/x"}});
    trial(id, id);
  }
  end_trial(1);
  auto requests = checkpoint_gc_requests(s, 1000);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].experiment_id, 1);
}

} // namespace det::state::test
