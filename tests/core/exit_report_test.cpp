// A trial's exit reported by an agent that still holds it: in the
// reconnect report (agent_connected) after the master that was sent the
// exit died before recording it, and again as a repeated exit frame. The
// trial ends as it really ended, once.

#include "tests/core/core_cluster.hpp"

#include "state/queries.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;

/// The reasons of the log's trial_exited events, in order.
std::vector<std::string> exits_in(memory_event_store& log) {
  std::vector<std::string> out;
  auto err = log.read({}, [&](recorded_event&& r) {
    if (r.body.type == "trial_exited")
      out.push_back(nlohmann::json::parse(r.body.payload).at("reason"));
    return caf::error{};
  });
  EXPECT_FALSE(err) << render(err);
  return out;
}

/// One trial of 100 batches on agent a1 that has reported its checkpoint
/// and validation at 100: the searcher asked it to finish.
void run_to_the_end(cluster& c) {
  c.run(c.core->submit_experiment(experiment(), "determined", c.now));
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  c.run(c.core->allocation_running("1.1", c.now));
  c.run(c.core->checkpoint_reported("1.1", "ck-100", 100, {}, c.now));
  c.run(c.core->metrics_reported("1.1", "validation", 100, {{"loss", 0.5}},
                                 c.now));
}

TEST(
    exit_report,
    exit_reported_in_the_reconnect_report_after_a_master_restart_is_applied_once) {
  cluster c;
  run_to_the_end(c);
  // The trial exits 0; the master that was sent the exit dies before
  // recording it. A new master replays the log.
  c.now += 5 * sec;
  c.restart({});
  ASSERT_FALSE(
      state::is_terminal(state::find_trial(c.core->state(), 1)->status));
  // The agent reconnects holding the exit.
  auto join = c.run(c.core->agent_connected("a1", "default", 1, "cpu", "",
                                            {{"1.1", 0}}, c.now));
  EXPECT_FALSE(join.refusal) << render(join.refusal);
  EXPECT_EQ(state::find_trial(c.core->state(), 1)->status,
            state::trial_status::completed);
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::completed);
  for (const auto& e : join.effects)
    EXPECT_FALSE(std::holds_alternative<kill_order>(e))
        << "an exited allocation is not killed";
  // It sends the exit again after the welcome: nothing more is written.
  EXPECT_TRUE(c.run(c.core->allocation_exited("1.1", 0, c.now)).events.empty());
  // The acknowledgement was lost; the next master hears it once more.
  c.now += 5 * sec;
  c.restart({});
  auto again = c.run(c.core->agent_connected("a1", "default", 1, "cpu", "",
                                             {{"1.1", 0}}, c.now));
  for (const auto& ev : again.events)
    EXPECT_FALSE(std::holds_alternative<trial_exited>(ev))
        << "a second exit was written";
  EXPECT_TRUE(c.run(c.core->allocation_exited("1.1", 0, c.now)).events.empty());
  EXPECT_EQ(exits_in(c.log), std::vector<std::string>{"completed"});
  EXPECT_EQ(c.experiment(1).status, state::experiment_status::completed);
}

TEST(exit_report, an_agent_that_reconnects_without_the_exit_loses_the_trial) {
  // What an agent that forgot the exit led to: the reason the agent keeps
  // it until acknowledged.
  cluster c;
  run_to_the_end(c);
  c.restart({});
  c.run(c.core->agent_connected("a1", "default", 1, "cpu", "", {}, c.now));
  EXPECT_EQ(exits_in(c.log), std::vector<std::string>{"agent_lost"});
}

TEST(exit_report, an_exit_reported_by_another_agent_is_ignored) {
  cluster c;
  run_to_the_end(c);
  c.run(
      c.core->agent_connected("a1", "default", 1, "cpu", "", {{"1.1"}}, c.now));
  auto rogue = c.run(c.core->agent_connected("a2", "default", 1, "cpu", "",
                                             {{"1.1", 1}}, c.now));
  for (const auto& ev : rogue.events)
    EXPECT_FALSE(std::holds_alternative<trial_exited>(ev));
  EXPECT_FALSE(
      state::is_terminal(state::find_trial(c.core->state(), 1)->status));
}

} // namespace
} // namespace det
