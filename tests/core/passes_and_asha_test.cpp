// master_core scenarios of preemption timeouts, scheduling passes decided
// off the master's thread (deferred_config) and the 0.38 adaptive ASHA
// searcher; as in
// master_core_test.cpp, each checks that replaying the log rebuilds the
// same state.

#include "tests/core/core_cluster.hpp"

#include "messages/errc.hpp"
#include "policy/pool_scheduler.hpp"
#include "state/queries.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;

TEST(master_core,
     a_trial_asked_to_stop_is_killed_once_its_preemption_timeout_passes) {
  cluster h;
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  h.run(h.core->pause_experiment(1, h.now));
  h.now += 59 * sec;
  EXPECT_TRUE(effects_of<kill_order>(h.run(h.core->tick(h.now))).empty());
  h.now += 2 * sec;
  auto kills = effects_of<kill_order>(h.run(h.core->tick(h.now)));
  ASSERT_EQ(kills.size(), 1u);
  EXPECT_EQ(kills[0].allocation_id, "1.1");
  // Only once.
  h.now += 10 * sec;
  EXPECT_TRUE(effects_of<kill_order>(h.run(h.core->tick(h.now))).empty());
}

core_config deferred_config() {
  auto c = config();
  c.inline_scheduling = false;
  return c;
}

TEST(master_core,
     without_inline_scheduling_decisions_name_the_pool_and_place_nothing) {
  cluster h(deferred_config());
  auto sub =
      h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  EXPECT_EQ(sub.schedule, std::set<std::string>{"default"});
  auto join =
      h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  EXPECT_EQ(join.schedule, std::set<std::string>{"default"});
  EXPECT_TRUE(effects_of<start_order>(join).empty());
  EXPECT_EQ(h.trial(1).status, state::trial_status::pending);
  // The pass, computed elsewhere on the snapshot, places it.
  auto snap = h.core->pool_snapshot_of("default");
  ASSERT_EQ(snap.pending.size(), 1u);
  auto result = policy::schedule_pool(snap, h.core->scheduler_of("default"));
  auto placed = h.run(h.core->apply_schedule("default", result, h.now));
  ASSERT_EQ(effects_of<start_order>(placed).size(), 1u);
  EXPECT_EQ(h.trial(1).status, state::trial_status::assigned);
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(
    master_core,
    a_pass_made_stale_by_a_lost_agent_places_nothing_and_the_next_pass_uses_another) {
  cluster h(deferred_config());
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  auto result = policy::schedule_pool(h.core->pool_snapshot_of("default"),
                                      h.core->scheduler_of("default"));
  ASSERT_EQ(result.placements.size(), 1u);
  // While the pass ran, the agent it chose went away for good.
  h.run(h.core->agent_disconnected("a1", "connection closed", h.now));
  h.now += 31 * sec;
  h.run(h.core->tick(h.now));
  auto stale = h.run(h.core->apply_schedule("default", result, h.now));
  EXPECT_FALSE(stale.refusal) << render(stale.refusal);
  EXPECT_TRUE(stale.events.empty());
  EXPECT_EQ(h.trial(1).status, state::trial_status::pending);
  h.run(h.core->agent_connected("a2", "default", 1, "cpu", "", {}, h.now));
  auto fresh = policy::schedule_pool(h.core->pool_snapshot_of("default"),
                                     h.core->scheduler_of("default"));
  auto placed = h.run(h.core->apply_schedule("default", fresh, h.now));
  auto starts = effects_of<start_order>(placed);
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_EQ(starts[0].agent_id, "a2");
  EXPECT_TRUE(state::check_invariants(h.core->state()).empty());
}

TEST(master_core, a_pass_whose_trial_was_killed_meanwhile_places_nothing) {
  cluster h(deferred_config());
  h.run(h.core->submit_experiment(experiment(), "determined", h.now));
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  auto result = policy::schedule_pool(h.core->pool_snapshot_of("default"),
                                      h.core->scheduler_of("default"));
  h.run(h.core->kill_experiment(1, h.now));
  auto stale = h.run(h.core->apply_schedule("default", result, h.now));
  EXPECT_TRUE(stale.events.empty());
  EXPECT_TRUE(effects_of<start_order>(stale).empty());
  EXPECT_EQ(h.trial(1).status, state::trial_status::canceled);
}

nlohmann::json asha_0_38(int max_trials) {
  auto e = experiment();
  e["searcher"] = {{"name", "adaptive_asha"},    {"metric", "loss"},
                   {"time_metric", "batches"},   {"max_time", 16},
                   {"max_trials", max_trials},   {"divisor", 2},
                   {"max_concurrent_trials", 1}, {"mode", "aggressive"}};
  return e;
}

TEST(master_core, asha_0_38_stops_a_trial_at_its_rung_by_the_time_metric) {
  cluster h;
  ASSERT_FALSE(
      h.run(h.core->submit_experiment(asha_0_38(2), "determined", h.now))
          .refusal);
  auto join =
      h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  ASSERT_EQ(effects_of<start_order>(join).size(), 1u);
  h.run(h.core->allocation_running("1.1", h.now));
  // Rungs at 8 and 16 batches. Steps do not count, the time metric does.
  auto early = h.run(h.core->metrics_reported(
      "1.1", "validation", 100, {{"loss", 0.5}, {"batches", 2}}, h.now));
  EXPECT_TRUE(effects_of<preempt_order>(early).empty());
  EXPECT_FALSE(h.trial(1).allocation->preemption_requested);
  // At its first rung with no one to beat: not promoted, asked to stop.
  auto rung = h.run(h.core->metrics_reported(
      "1.1", "validation", 4, {{"loss", 0.5}, {"batches", 8}}, h.now));
  auto stops = effects_of<preempt_order>(rung);
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].reason, "stopped by searcher");
  // Its clean exit completes it; the searcher starts the next trial.
  h.run(h.core->allocation_exited("1.1", 0, h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::completed);
  EXPECT_NE(state::find_trial(h.core->state(), 2), nullptr);
  EXPECT_EQ(h.replayed(), h.core->state());
}

TEST(master_core,
     single_searcher_without_max_length_completes_when_the_trial_exits) {
  cluster h;
  auto e = experiment();
  e["searcher"].erase("max_length");
  ASSERT_FALSE(
      h.run(h.core->submit_experiment(e, "determined", h.now)).refusal);
  h.run(h.core->agent_connected("a1", "default", 1, "cpu", "", {}, h.now));
  h.run(h.core->allocation_running("1.1", h.now));
  auto val = h.run(h.core->metrics_reported("1.1", "validation", 1000,
                                            {{"loss", 0.5}}, h.now));
  EXPECT_TRUE(effects_of<preempt_order>(val).empty());
  h.run(h.core->allocation_exited("1.1", 0, h.now));
  EXPECT_EQ(h.trial(1).status, state::trial_status::completed);
  EXPECT_EQ(state::find_experiment(h.core->state(), 1)->status,
            state::experiment_status::completed);
}

} // namespace
} // namespace det
