// Experiment creation as one command (master_core::create_experiment): the
// experiment, its requested activity and "model definition pending" are one
// append; its trials wait for model_definition_stored. A master that stops
// between the two is settled at start-up from what the model store holds.

#include "tests/core/core_cluster.hpp"

#include "messages/errc.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;

TEST(experiment_creation,
     a_paused_creation_is_one_append_with_its_model_pending) {
  cluster c;
  auto before = c.core->state().position;
  auto d = c.run(
      c.core->create_experiment(experiment(), "alice", false, true, c.now));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  ASSERT_GE(d.events.size(), 2u);
  auto sub = std::get_if<experiment_submitted>(&d.events[0]);
  ASSERT_NE(sub, nullptr);
  EXPECT_TRUE(sub->model_definition_pending);
  auto paused = std::get_if<experiment_state_changed>(&d.events[1]);
  ASSERT_NE(paused, nullptr);
  EXPECT_EQ(paused->state, "PAUSED");
  EXPECT_EQ(c.core->state().position, before + int64_t(d.events.size()));
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::paused);
  EXPECT_TRUE(c.experiment(1).model_definition_pending);
}

TEST(experiment_creation, trials_wait_for_the_model_definition_and_then_run) {
  cluster c;
  c.run(c.core->create_experiment(experiment(), "alice", true, true, c.now));
  auto join =
      c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  EXPECT_EQ(starts_in<start_order>(join), 0u)
      << "a trial was placed before its model definition was stored";
  ASSERT_FALSE(state::find_trial(c.core->state(), 1) == nullptr);
  EXPECT_EQ(state::find_trial(c.core->state(), 1)->status,
            state::trial_status::pending);
  auto stored = c.run(c.core->model_definition_stored(1, c.now));
  EXPECT_FALSE(c.experiment(1).model_definition_pending);
  EXPECT_EQ(starts_in<start_order>(stored), 1u);
  // Said twice (a retried request): nothing more happens.
  EXPECT_TRUE(c.core->model_definition_stored(1, c.now).events.empty());
}

TEST(
    experiment_creation,
    a_master_stopped_before_the_model_was_stored_ends_the_experiment_in_error) {
  cluster c;
  c.run(c.core->create_experiment(experiment(), "alice", true, true, c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  // The master stops here; the model store never got the definition.
  c.restart({});
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::error);
  EXPECT_NE(c.experiment(1).status_reason.find("model definition"),
            std::string::npos)
      << c.experiment(1).status_reason;
  EXPECT_EQ(state::find_trial(c.core->state(), 1)->status,
            state::trial_status::canceled);
  EXPECT_TRUE(state::check_invariants(c.core->state()).empty());
}

TEST(experiment_creation,
     a_master_stopped_after_the_model_was_stored_lets_the_experiment_run) {
  cluster c;
  c.run(c.core->create_experiment(experiment(), "alice", true, true, c.now));
  // Stored in the model store; the master stopped before recording it.
  c.restart({1});
  EXPECT_FALSE(c.experiment(1).model_definition_pending);
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::active);
  auto join =
      c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  EXPECT_EQ(starts_in<start_order>(join), 1u);
}

TEST(experiment_creation, created_paused_stays_paused_across_a_restart) {
  cluster c;
  c.run(c.core->create_experiment(experiment(), "alice", false, true, c.now));
  c.restart({1});
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::paused);
  EXPECT_FALSE(c.experiment(1).model_definition_pending);
  auto join =
      c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  EXPECT_EQ(starts_in<start_order>(join), 0u);
}

TEST(experiment_creation,
     an_older_log_without_the_field_replays_as_not_pending) {
  // experiment_submitted as a master of the previous release wrote it.
  recorded_event r;
  r.position = 1;
  r.body.type = "experiment_submitted";
  r.body.schema_version = 1;
  r.body.payload = R"({"experiment_id":1,"pool":"default"})";
  auto ev = decode(r);
  ASSERT_TRUE(ev) << render(ev.error());
  EXPECT_FALSE(std::get<experiment_submitted>(*ev).model_definition_pending);
}

} // namespace
} // namespace det

namespace det {
namespace {

using namespace det::test;

TEST(user_commands,
     a_second_user_of_one_name_is_a_conflict_and_writes_nothing) {
  cluster c;
  auto first = c.run(c.core->change_users(user_created{"ann", false, "h", 1}));
  ASSERT_FALSE(first.refusal) << render(first.refusal);
  EXPECT_EQ(first.events.size(), 1u);
  auto second = c.core->change_users(user_created{"ann", true, "h2", 2});
  EXPECT_EQ(code_of(second.refusal), errc::conflict);
  EXPECT_TRUE(second.events.empty());
  EXPECT_FALSE(c.core->state().users.at("ann").admin);
}

TEST(user_commands, users_and_sessions_name_users_that_exist) {
  cluster c;
  EXPECT_EQ(
      code_of(
          c.core->change_users(user_password_changed{"bob", "h", 1}).refusal),
      errc::not_found);
  EXPECT_EQ(
      code_of(
          c.core->change_users(session_started{"bob", std::string(64, 'a'), 1})
              .refusal),
      errc::not_found);
  // Logging out a session that is not live changes nothing.
  auto out =
      c.core->change_users(session_ended{"bob", std::string(64, 'b'), 1});
  EXPECT_FALSE(out.refusal);
  EXPECT_TRUE(out.events.empty());
  EXPECT_EQ(code_of(c.core->change_users(trial_restarted{1, 1}).refusal),
            errc::invalid_argument);
}

TEST(experiment_creation,
     a_warm_start_source_that_does_not_exist_is_refused_naming_the_field) {
  cluster c;
  auto cfg = experiment();
  cfg["searcher"]["source_trial_id"] = 7;
  auto d = c.core->create_experiment(cfg, "alice", true, false, c.now);
  EXPECT_EQ(code_of(d.refusal), errc::not_found);
  EXPECT_NE(render(d.refusal).find("searcher.source_trial_id"),
            std::string::npos);
  EXPECT_TRUE(d.events.empty());
  cfg = experiment();
  cfg["searcher"]["source_checkpoint_uuid"] = "nope";
  d = c.core->create_experiment(cfg, "alice", true, false, c.now);
  EXPECT_EQ(code_of(d.refusal), errc::not_found);
  EXPECT_NE(render(d.refusal).find("searcher.source_checkpoint_uuid"),
            std::string::npos);
}

TEST(experiment_creation,
     a_warm_started_trial_starts_from_its_sources_checkpoint) {
  cluster c;
  c.run(c.core->create_experiment(experiment(), "alice", true, false, c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  c.run(c.core->allocation_running("1.1", c.now));
  // Trial 1 has no checkpoint yet: it cannot be a source.
  auto cfg = experiment();
  cfg["searcher"]["source_trial_id"] = 1;
  auto early = c.core->create_experiment(cfg, "alice", true, false, c.now);
  EXPECT_EQ(code_of(early.refusal), errc::invalid_argument);
  c.run(c.core->checkpoint_reported("1.1", "ck-40", 40, {}, c.now));
  c.run(c.core->kill_experiment(1, c.now));
  c.run(c.core->allocation_exited("1.1", 137, c.now));
  auto made =
      c.run(c.core->create_experiment(cfg, "alice", true, false, c.now));
  ASSERT_FALSE(made.refusal) << render(made.refusal);
  // Placed at once on a1 (free again), else on a new agent.
  auto join =
      c.run(c.core->agent_connected("a2", "default", 1, "cpu", "", {}, c.now));
  std::vector<start_order> starts;
  for (const auto* d : {&made, &join})
    for (const auto& e : d->effects)
      if (auto o = std::get_if<start_order>(&e))
        starts.push_back(*o);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].experiment_id, 2);
  ASSERT_TRUE(starts[0].resume_from);
  EXPECT_EQ(starts[0].resume_from->uuid, "ck-40");
  EXPECT_EQ(starts[0].resume_from->steps_completed, 0);
}

TEST(experiment_creation,
     a_trial_that_can_never_fit_errs_or_waits_as_launch_error_says) {
  for (bool launch_error : {true, false}) {
    auto cfg = config("local", 2, 1); // two one-slot instances at most
    cfg.launch_error = launch_error;
    cluster c{cfg};
    c.run(c.core->create_experiment(experiment(100, 2, 4), "alice", true, false,
                                    c.now));
    auto t = state::find_trial(c.core->state(), 1);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->status, launch_error ? state::trial_status::errored
                                      : state::trial_status::pending)
        << "launch_error " << launch_error;
  }
}

} // namespace
} // namespace det
