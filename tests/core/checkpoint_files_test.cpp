// core/checkpoint_files.hpp on a real cluster_state: the user's globs are
// checked at the boundary (naming the field), a removal is refused for
// unknown uuids (naming them) and for checkpoints being deleted, requested
// removals are listed with their storage until checkpoint_files_removed,
// whose resources make a checkpoint partially deleted or deleted; and
// which paths a glob matches.

#include "core/checkpoint_files.hpp"
#include "messages/errc.hpp"
#include "tests/state/state_fixture.hpp"

namespace det::state::test {

namespace {

using nlohmann::json;

class checkpoint_files_core : public state_fixture {
protected:
  void SetUp() override {
    pool();
    agent("a1", 4);
    experiment_submitted e;
    e.experiment_id = 1;
    e.pool = "default";
    e.config = {{"searcher", {{"metric", "loss"}}},
                {"checkpoint_storage",
                 {{"type", "shared_fs"}, {"host_path", "/tmp/x"}}}};
    ok(e);
    trial(1, 1);
    place(1, "1.1", {{"a1", {0}}});
    for (int step = 10; step <= 20; step += 10)
      ok(trial_checkpointed{1,
                            "c" + std::to_string(step),
                            step,
                            {{"resources", {{"state", 3}, {"model/w.bin", 5}}}},
                            "1.1",
                            600 + step});
  }

  const checkpoint_info& ck(size_t i) {
    return s.trials.at(1).checkpoints.at(i);
  }
};

std::string message(const caf::error& e) {
  return render(e);
}

} // namespace

TEST(checkpoint_globs, are_refused_with_the_field_named) {
  EXPECT_TRUE(checkpoint_globs_of(json::array())->empty());
  EXPECT_TRUE(checkpoint_globs_of(json{})->empty());
  auto good = checkpoint_globs_of(json{"state*", "**/*.bin", "a/b?c"});
  ASSERT_TRUE(good);
  EXPECT_EQ(good->size(), 3u);
  std::vector<json> bad{json{""},
                        json{"../x"},
                        json{"a/../../b"},
                        json{"x.."},
                        json{"/etc/passwd"},
                        json{"a\nb"},
                        json{std::string(256, 'a')},
                        json{1},
                        json("state*"),
                        json(std::vector<std::string>(101, "a"))};
  for (const auto& b : bad) {
    auto r = checkpoint_globs_of(b);
    ASSERT_FALSE(r) << b.dump();
    EXPECT_EQ(code_of(r.error()), errc::invalid_argument) << b.dump();
    EXPECT_NE(message(r.error()).find("checkpointGlobs"), std::string::npos)
        << b.dump();
  }
}

TEST(checkpoint_globs, match_paths_and_folders_relative_to_the_checkpoint) {
  EXPECT_TRUE(checkpoint_glob_matches("state*", "state"));
  EXPECT_TRUE(checkpoint_glob_matches("state*", "state_dict.pt"));
  EXPECT_FALSE(checkpoint_glob_matches("state*", "model/state"));
  EXPECT_TRUE(checkpoint_glob_matches("*state", "model/state"));
  // A folder's name removes what is in it.
  EXPECT_TRUE(checkpoint_glob_matches("model", "model/w.bin"));
  EXPECT_TRUE(checkpoint_glob_matches("mod*", "model/sub/w.bin"));
  EXPECT_FALSE(checkpoint_glob_matches("model", "models.txt"));
  EXPECT_TRUE(checkpoint_glob_matches("**/*", "top.txt"));
  EXPECT_TRUE(checkpoint_glob_matches("**/*", "a/b/c.txt"));
  EXPECT_TRUE(checkpoint_glob_matches("**/*.bin", "w.bin"));
  EXPECT_FALSE(checkpoint_glob_matches("**/*.bin", "w.txt"));
  EXPECT_TRUE(checkpoint_glob_matches("w.bi?", "w.bin"));
  EXPECT_FALSE(checkpoint_glob_matches("w.bin", ""));
}

TEST_F(checkpoint_files_core, unknown_uuids_are_not_found_by_name) {
  auto r = user_checkpoint_file_removal(s, {"c10", "zz", "aa"}, {"x"}, "u", 1);
  ASSERT_FALSE(r);
  EXPECT_EQ(code_of(r.error()), errc::not_found);
  EXPECT_NE(message(r.error()).find("aa, zz"), std::string::npos)
      << message(r.error());
}

TEST_F(checkpoint_files_core, a_removal_is_pending_until_its_files_are_gone) {
  auto r = user_checkpoint_file_removal(s, {"c10", "c10"}, {"state*"}, "u", 7);
  ASSERT_TRUE(r) << message(r.error());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].uuids, std::vector<std::string>{"c10"});
  EXPECT_EQ((*r)[0].globs, std::vector<std::string>{"state*"});
  ok((*r)[0]);
  auto pending = pending_checkpoint_file_removals(s);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].uuid, "c10");
  EXPECT_EQ(pending[0].globs, std::vector<std::string>{"state*"});
  EXPECT_EQ(pending[0].storage["host_path"], "/tmp/x");
  // A second removal of the same checkpoint waits for the first.
  EXPECT_EQ(
      code_of(user_checkpoint_file_removal(s, {"c10"}, {}, "u", 8).error()),
      errc::invalid_argument);
  ok(checkpoint_files_removed{1, "c10", {{"model/w.bin", 5}}, 9});
  EXPECT_TRUE(pending_checkpoint_file_removals(s).empty());
  EXPECT_EQ(ck(0).state, "partially_deleted");
  EXPECT_EQ(ck(0).metadata["resources"], (json{{"model/w.bin", 5}}));
  // Removing the rest deletes it.
  ok(*user_checkpoint_file_removal(s, {"c10"}, {"**/*"}, "u", 10)->begin());
  ok(checkpoint_files_removed{1, "c10", json::object(), 11});
  EXPECT_EQ(ck(0).state, "deleted");
  // Its list of files stays as it was, as upstream's.
  EXPECT_EQ(ck(0).metadata["resources"], (json{{"model/w.bin", 5}}));
  // Not asked for: refused.
  refused(checkpoint_files_removed{1, "c20", json::object(), 12});
}

TEST_F(checkpoint_files_core,
       a_refresh_that_finds_the_same_files_changes_nothing) {
  ok(*user_checkpoint_file_removal(s, {"c20"}, {}, "u", 7)->begin());
  // Sizes as text (how a trial may report them) equal the same numbers.
  ok(checkpoint_files_removed{1, "c20", {{"state", 3}, {"model/w.bin", 5}}, 8});
  EXPECT_EQ(ck(1).state, "completed");
  EXPECT_EQ(s.trials.at(1).latest_checkpoint->state, "completed");
}

TEST_F(checkpoint_files_core, checkpoints_being_deleted_are_refused) {
  ok(checkpoints_deletion_requested{1, {"c10"}, "user", "u", 5});
  auto r = user_checkpoint_file_removal(s, {"c10"}, {"x"}, "u", 6);
  ASSERT_FALSE(r);
  EXPECT_EQ(code_of(r.error()), errc::invalid_argument);
  EXPECT_NE(message(r.error()).find("checkpointUuids"), std::string::npos);
  refused(checkpoint_files_removal_requested{1, {"c10"}, {"x"}, "u", 6});
  refused(checkpoint_files_removal_requested{1, {"nope"}, {"x"}, "u", 6});
}

} // namespace det::state::test
