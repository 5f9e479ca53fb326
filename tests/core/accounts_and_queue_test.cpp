// Account and queue commands of the core: user edits (a rename keeps the
// account's sessions, tokens and experiments), access tokens numbered by
// the core, the cluster message and the cluster's identity, and the
// scheduling changes of det job update / det experiment set (priority,
// weight, max slots) that the scheduler honours. Each is one append that
// replays to the same state.

#include "core/checkpoint_gc.hpp"
#include "core/experiments_parse.hpp"
#include "tests/core/core_cluster.hpp"

#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;

const std::string hash_a(64, 'a');
const std::string hash_b(64, 'b');

user_edited edit_of(const state::user_info& u) {
  return {
      u.username,  u.username,   u.display_name, u.admin, u.active, u.agent_uid,
      u.agent_gid, u.agent_user, u.agent_group,  "admin", 7};
}

TEST(account_commands, a_rename_keeps_sessions_tokens_and_experiments) {
  cluster c;
  c.run(c.core->change_users(user_created{"ann", false, "h", 1}));
  c.run(c.core->change_users(session_started{"ann", hash_a, 2}));
  c.run(c.core->change_users(
      access_token_created{0, "ann", hash_b, "ci", 0, "ann", 3}));
  c.run(c.core->create_experiment(experiment(), "ann", true, false, c.now));
  auto ev = edit_of(c.core->state().users.at("ann"));
  ev.new_username = "anna";
  ev.display_name = "Anna";
  auto d = c.run(c.core->change_users(ev));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  const auto& s = c.core->state();
  EXPECT_EQ(s.users.count("ann"), 0u);
  EXPECT_EQ(s.users.at("anna").display_name, "Anna");
  EXPECT_EQ(s.sessions.at(hash_a), "anna");
  EXPECT_EQ(s.access_tokens.at(1).username, "anna");
  EXPECT_EQ(c.experiment(1).owner, "anna");
  EXPECT_EQ(c.replayed(), s);
}

TEST(account_commands, a_rename_onto_another_user_is_a_conflict) {
  cluster c;
  c.run(c.core->change_users(user_created{"ann", false, "h", 1}));
  c.run(c.core->change_users(user_created{"bob", false, "h", 1}));
  auto ev = edit_of(c.core->state().users.at("ann"));
  ev.new_username = "bob";
  auto d = c.core->change_users(ev);
  EXPECT_EQ(code_of(d.refusal), errc::conflict);
  EXPECT_TRUE(d.events.empty());
  ev.username = ev.new_username = "nobody";
  EXPECT_EQ(code_of(c.core->change_users(ev).refusal), errc::not_found);
}

TEST(account_commands, a_non_admin_never_goes_by_admin_nor_anyone_determined) {
  cluster c;
  c.run(c.core->change_users(user_created{"ann", false, "h", 1}));
  c.run(c.core->change_users(user_created{"root", true, "h", 1}));
  auto ev = edit_of(c.core->state().users.at("ann"));
  for (const char* name : {"Admin", " admin ", "DETERMINED"}) {
    ev.display_name = name;
    auto d = c.core->change_users(ev);
    EXPECT_EQ(code_of(d.refusal), errc::invalid_argument) << name;
    EXPECT_TRUE(d.events.empty()) << name;
  }
  // Judged on the account as it is: promoting it in the same edit does
  // not let it through.
  ev.display_name = "admin";
  ev.admin = true;
  EXPECT_EQ(code_of(c.core->change_users(ev).refusal), errc::invalid_argument);
  ev = edit_of(c.core->state().users.at("ann"));
  ev.new_username = "Admin";
  EXPECT_EQ(code_of(c.core->change_users(ev).refusal), errc::invalid_argument);
  EXPECT_EQ(
      code_of(
          c.core->change_users(user_created{"ADMIN", false, "h", 2}).refusal),
      errc::invalid_argument);
  // An admin may be shown as "Admin"; no one else as "determined".
  auto root = edit_of(c.core->state().users.at("root"));
  root.display_name = "Admin";
  EXPECT_FALSE(c.run(c.core->change_users(root)).refusal);
  root.display_name = "determined";
  EXPECT_EQ(code_of(c.core->change_users(root).refusal),
            errc::invalid_argument);
  EXPECT_EQ(c.core->state().users.at("root").display_name, "Admin");
}

TEST(account_commands, the_core_numbers_tokens_and_a_revoked_one_stays_so) {
  cluster c;
  c.run(c.core->change_users(user_created{"ann", false, "h", 1}));
  // The caller's id is ignored: tokens count from 1.
  auto first = c.run(c.core->change_users(
      access_token_created{42, "ann", hash_a, "a", 0, "ann", 2}));
  auto second = c.run(c.core->change_users(
      access_token_created{42, "ann", hash_b, "b", 0, "ann", 3}));
  EXPECT_EQ(std::get<access_token_created>(first.events.at(0)).token_id, 1);
  EXPECT_EQ(std::get<access_token_created>(second.events.at(0)).token_id, 2);
  c.run(
      c.core->change_users(access_token_changed{1, "ann", "a", true, "x", 4}));
  EXPECT_TRUE(c.core->state().access_tokens.at(1).revoked);
  auto back =
      c.core->change_users(access_token_changed{1, "ann", "a", false, "x", 5});
  EXPECT_EQ(code_of(back.refusal), errc::invalid_argument);
  // A change that changes nothing writes nothing.
  EXPECT_TRUE(
      c.core->change_users(access_token_changed{2, "ann", "b", false, "x", 6})
          .events.empty());
  EXPECT_EQ(
      code_of(
          c.core->change_users(access_token_changed{9, "ann", "", true, "x", 7})
              .refusal),
      errc::not_found);
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST(account_commands, the_cluster_message_is_set_and_cleared) {
  cluster c;
  c.run(c.core->change_users(cluster_message_set{"hello", 10, 20, "admin", 5}));
  EXPECT_EQ(c.core->state().cluster_message.message, "hello");
  EXPECT_EQ(c.core->state().cluster_message.end_us, 20);
  c.run(c.core->change_users(cluster_message_set{"", 0, 0, "admin", 6}));
  EXPECT_TRUE(c.core->state().cluster_message.message.empty());
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST(cluster_identity,
     the_first_master_names_the_cluster_and_later_ones_keep_it) {
  auto cfg = config();
  cfg.new_cluster_uuid = "11111111-1111-4111-8111-111111111111";
  cfg.master_uuid = "22222222-2222-4222-8222-222222222222";
  cluster c{cfg};
  EXPECT_EQ(c.core->state().cluster_uuid, cfg.new_cluster_uuid);
  auto st = c.replayed();
  auto next = cfg;
  next.new_cluster_uuid = "33333333-3333-4333-8333-333333333333";
  next.master_uuid = "44444444-4444-4444-8444-444444444444";
  master_core again{std::move(st), next};
  auto d = again.start(c.now);
  auto ms = std::get<master_started>(d.events.at(0));
  EXPECT_EQ(ms.cluster_uuid, cfg.new_cluster_uuid);
  EXPECT_EQ(again.state().cluster_uuid, cfg.new_cluster_uuid);
  EXPECT_EQ(again.state().master_uuid, next.master_uuid);
}

TEST(queue_commands, a_priority_change_is_one_event_and_bad_values_are_named) {
  cluster c;
  c.run(c.core->create_experiment(experiment(), "ann", true, false, c.now));
  auto d = c.run(c.core->change_resources(1, {10, 2.5, {}}, "ann", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  ASSERT_EQ(d.events.size(), 1u);
  auto ev = std::get<experiment_resources_changed>(d.events[0]);
  EXPECT_EQ(ev.priority, 10);
  EXPECT_EQ(ev.weight, 2.5);
  EXPECT_EQ(ev.max_slots, 0);
  EXPECT_EQ(c.experiment(1).priority, 10);
  for (const auto& [bad, field] :
       std::vector<std::pair<nlohmann::json, std::string>>{
           {{{"priority", 0}}, "priority"},
           {{{"priority", 100}}, "priority"},
           {{{"priority", "high"}}, "priority"},
           {{{"weight", -1}}, "weight"},
           {{{"maxSlots", -2}}, "maxSlots"},
           {{{"colour", 1}}, "colour"}}) {
    auto r = parse_resources_edit(bad, "resources");
    ASSERT_FALSE(r) << bad.dump();
    EXPECT_EQ(code_of(r.error()), errc::invalid_argument) << bad.dump();
    EXPECT_EQ(render(r.error()).find("invalid_argument: resources." + field),
              0u)
        << render(r.error());
  }
  // Nothing changes: nothing is written.
  EXPECT_TRUE(
      c.core->change_resources(1, {10, {}, {}}, "ann", c.now).events.empty());
  EXPECT_EQ(
      code_of(c.core->change_resources(9, {5, {}, {}}, "a", c.now).refusal),
      errc::not_found);
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST(queue_commands, a_job_moved_ahead_is_placed_first) {
  cluster c;
  c.run(c.core->create_experiment(experiment(), "ann", true, false, c.now));
  c.run(c.core->create_experiment(experiment(), "ann", true, false, c.now));
  c.run(c.core->change_resources(2, {5, {}, {}}, "ann", c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  EXPECT_EQ(c.trial(2).status, state::trial_status::assigned);
  EXPECT_EQ(c.trial(1).status, state::trial_status::pending);
}

TEST(queue_commands, max_slots_holds_trials_back_until_raised) {
  cluster c;
  auto cfg = experiment(100, 2, 1, "grid");
  cfg["hyperparameters"] = {
      {"lr", {{"type", "categorical"}, {"vals", {0.1, 0.2, 0.3}}}}};
  cfg["resources"]["max_slots"] = 1;
  auto made = c.run(c.core->create_experiment(cfg, "ann", true, false, c.now));
  ASSERT_FALSE(made.refusal) << render(made.refusal);
  EXPECT_EQ(c.experiment(1).max_slots, 1);
  c.run(c.core->agent_connected("a1", "default", 4, "cpu", "", {}, c.now));
  auto held = [&] {
    int n = 0;
    for (auto t : state::trials_of_experiment(c.core->state(), 1))
      n += t->allocation ? 1 : 0;
    return n;
  };
  EXPECT_EQ(held(), 1);
  // Offered to the provisioner neither: only what fits under the limit.
  EXPECT_TRUE(state::pending_trials(c.core->state(), "default").empty());
  c.run(c.core->change_resources(1, {{}, {}, 2}, "ann", c.now));
  EXPECT_EQ(held(), 2);
  c.run(c.core->change_resources(1, {{}, {}, 0}, "ann", c.now));
  EXPECT_EQ(held(), 3);
}

TEST(experiment_commands,
     a_deleted_experiment_leaves_and_its_ids_are_not_reused) {
  cluster c;
  c.run(c.core->create_experiment(experiment(), "ann", true, false, c.now));
  auto running = c.core->delete_experiment(1, "ann", c.now);
  EXPECT_EQ(code_of(running.refusal), errc::invalid_argument);
  EXPECT_TRUE(running.events.empty());
  c.run(c.core->kill_experiment(1, c.now));
  ASSERT_TRUE(state::is_terminal(c.experiment(1).status));
  // Only its owner or an admin: another user is forbidden, before any
  // check of its state.
  auto other = c.core->delete_experiment(1, "bob", c.now);
  EXPECT_EQ(code_of(other.refusal), errc::permission_denied);
  EXPECT_NE(render(other.refusal).find("forbidden"), std::string::npos);
  EXPECT_TRUE(other.events.empty());
  auto d = c.run(c.core->delete_experiment(1, "ann", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  // As upstream: DELETING until the collector has deleted its files, and
  // no command meanwhile (a continue would resume from checkpoints being
  // deleted).
  ASSERT_NE(state::find_experiment(c.core->state(), 1), nullptr);
  EXPECT_TRUE(c.experiment(1).deleting);
  auto again = c.core->delete_experiment(1, "ann", c.now);
  EXPECT_EQ(code_of(again.refusal), errc::failed_precondition);
  EXPECT_NE(render(again.refusal).find("being deleted"), std::string::npos);
  auto cont =
      c.core->continue_experiment(1, nlohmann::json::object(), "ann", c.now);
  EXPECT_EQ(code_of(cont.refusal), errc::failed_precondition);
  EXPECT_TRUE(cont.events.empty());
  EXPECT_EQ(code_of(c.core->archive_experiment(1, true, "ann", c.now).refusal),
            errc::failed_precondition);
  // Without checkpoints, the collector still has its TensorBoard files to
  // delete, and then the experiment to finish.
  auto pending = pending_checkpoint_deletions(c.core->state());
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_TRUE(pending[0].uuids.empty());
  EXPECT_TRUE(pending[0].experiment_deleted);
  EXPECT_TRUE(pending[0].finishes_deletion);
  auto gone = c.run(c.core->decide(checkpoints_removed{1, {}, true}, c.now));
  ASSERT_FALSE(gone.refusal) << render(gone.refusal);
  EXPECT_EQ(state::find_experiment(c.core->state(), 1), nullptr);
  EXPECT_EQ(state::find_trial(c.core->state(), 1), nullptr);
  EXPECT_TRUE(pending_checkpoint_deletions(c.core->state()).empty());
  EXPECT_EQ(code_of(c.core->delete_experiment(1, "ann", c.now).refusal),
            errc::not_found);
  // The next experiment and trial get new ids, also after a restart.
  c.restart({});
  c.run(c.core->create_experiment(experiment(), "ann", true, false, c.now));
  EXPECT_NE(state::find_experiment(c.core->state(), 2), nullptr);
  EXPECT_NE(state::find_trial(c.core->state(), 2), nullptr);
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST(experiment_commands,
     a_deleted_experiments_checkpoints_are_handed_to_the_collector) {
  cluster c;
  c.run(c.core->create_experiment(experiment(), "ann", true, false, c.now));
  c.run(c.core->agent_connected("a1", "default", 4, "cpu", "", {}, c.now));
  c.run(c.core->allocation_running("1.1", c.now));
  c.run(c.core->checkpoint_reported("1.1", "ck-1", 10, {}, c.now));
  c.run(c.core->checkpoint_reported("1.1", "ck-2", 20, {}, c.now));
  // Found by the chaos suite: a report the harness sent again after a
  // master kill listed the checkpoint twice, and the GC's request naming it
  // twice was refused on every tick.
  auto again = c.run(c.core->checkpoint_reported("1.1", "ck-2", 20, {}, c.now));
  EXPECT_FALSE(again.refusal) << render(again.refusal);
  EXPECT_TRUE(again.events.empty());
  EXPECT_EQ(c.trial(1).checkpoints.size(), 2u);
  c.run(c.core->kill_experiment(1, c.now));
  c.run(c.core->allocation_exited("1.1", 137, c.now));
  ASSERT_TRUE(state::is_terminal(c.experiment(1).status));
  auto d = c.run(c.core->delete_experiment(1, "ann", c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply["checkpointsDeleted"], 2);
  // One deletion: its checkpoints, its TensorBoard files, then itself.
  auto pending = pending_checkpoint_deletions(c.core->state());
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].uuids, (std::vector<std::string>{"ck-1", "ck-2"}));
  EXPECT_TRUE(pending[0].finishes_deletion);
  EXPECT_EQ(c.replayed(), c.core->state());
  // What the collector records once the files are gone.
  auto done = c.run(
      c.core->decide(checkpoints_removed{1, pending[0].uuids, true}, c.now));
  ASSERT_FALSE(done.refusal) << render(done.refusal);
  EXPECT_EQ(state::find_experiment(c.core->state(), 1), nullptr);
  EXPECT_TRUE(c.core->state().orphan_checkpoints.empty());
  EXPECT_TRUE(pending_checkpoint_deletions(c.core->state()).empty());
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST(slot_commands, a_disabled_slot_takes_no_work_and_its_trial_moves) {
  cluster c;
  c.run(c.core->agent_connected("a1", "default", 2, "cpu", "", {}, c.now));
  // Slot 0 disabled before any work: the trial goes to slot 1.
  auto off = c.run(c.core->set_slot_enabled("a1", 0, false, false, c.now));
  ASSERT_FALSE(off.refusal) << render(off.refusal);
  c.run(c.core->create_experiment(experiment(), "ann", true, false, c.now));
  ASSERT_TRUE(c.trial(1).allocation);
  EXPECT_EQ(c.trial(1).allocation->assignments.at(0).slots,
            std::vector<int64_t>{1});
  // Disabling the used slot without drain kills its trial at once.
  auto busy = c.run(c.core->set_slot_enabled("a1", 1, false, false, c.now));
  size_t kills = 0;
  for (const auto& e : busy.effects)
    kills += std::holds_alternative<kill_order>(e) ? 1 : 0;
  EXPECT_EQ(kills, 1u);
  EXPECT_EQ(state::free_slots(c.core->state().agents.at("a1")), 0);
  // Said again: nothing written. Unknown slot or agent: not found.
  EXPECT_TRUE(
      c.core->set_slot_enabled("a1", 1, false, false, c.now).events.empty());
  EXPECT_EQ(
      code_of(c.core->set_slot_enabled("a1", 5, false, false, c.now).refusal),
      errc::not_found);
  EXPECT_EQ(
      code_of(c.core->set_slot_enabled("zz", 0, true, false, c.now).refusal),
      errc::not_found);
  c.run(c.core->set_slot_enabled("a1", 0, true, false, c.now));
  EXPECT_EQ(c.core->state().agents.at("a1").disabled_slots,
            std::vector<int64_t>{1});
  // The killed trial's exit (SIGKILL's 137) counts no restart, and the
  // trial is placed again, on the enabled slot 0.
  auto alloc = c.trial(1).allocation->id;
  c.run(c.core->allocation_exited(alloc, 137, c.now));
  EXPECT_EQ(c.trial(1).restarts, 0);
  ASSERT_TRUE(c.trial(1).allocation);
  EXPECT_EQ(c.trial(1).allocation->assignments.at(0).slots,
            std::vector<int64_t>{0});
  EXPECT_EQ(c.replayed(), c.core->state());
}

} // namespace
} // namespace det
