// pools_to_wake: which provisioners the master wakes after a durable batch.

#include "core/provisioning_wake.hpp"
#include "messages/errc.hpp"
#include "tests/support/applied_state.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using pools = std::set<std::string>;

struct wake_fixture : ::testing::Test, test::applied_state {

  void SetUp() override {
    for (const char* name : {"gpu", "cpu"}) {
      pool_configured p;
      p.pool = name;
      p.provider = "aws";
      p.slots_per_instance = 1;
      p.max_instances = 3;
      apply(p);
    }
    experiment_submitted e;
    e.experiment_id = 1;
    e.pool = "gpu";
    e.owner = "u";
    apply(e);
    apply(trial_created{7, 1, nlohmann::json::object(), "r1", 0});
    apply(agent_connected{"a-cpu", "cpu", 1, "cpu", "", 0});
  }

  /// The pools to wake for `events` (the master asks with them applied;
  /// apply those the answer depends on first).
  pools wake(std::vector<domain_event> events) {
    return pools_to_wake(s, events);
  }
};

TEST_F(wake_fixture, demand_and_capacity_changes_wake_their_pool_only) {
  trial_created t8{8, 1, nlohmann::json::object(), "r2", 0};
  apply(t8);
  EXPECT_EQ(wake({t8}), pools{"gpu"});
  EXPECT_EQ(wake({trial_canceled{7, "killed", 0}}), pools{"gpu"});
  EXPECT_EQ(wake({experiment_state_changed{1, "PAUSED", "", 0}}), pools{"gpu"});
  EXPECT_EQ(wake({agent_disconnected{"a-cpu", "closed", 0, 0}}), pools{"cpu"});
  EXPECT_EQ(wake({instance_launch_requested{"cpu", 1, "t", 1, false, 0}}),
            pools{"cpu"});
  EXPECT_EQ(wake({agent_connected{"a2", "gpu", 1, "cpu", "", 0},
                  agent_lost{"a-cpu", "shut_down", 0}}),
            (pools{"cpu", "gpu"}));
}

// A cluster that only trains makes its provisioners decide nothing new
// (and so call the cloud no more than the tick does).
TEST_F(wake_fixture, training_progress_wakes_nobody) {
  EXPECT_EQ(wake({trial_running{7, "7.1", 0},
                  trial_metrics_reported{7, "7.1", "training", 10,
                                         nlohmann::json::object(), 0},
                  trial_checkpointed{7, "uuid", 10, nlohmann::json::object(),
                                     "7.1", 0},
                  session_started{}, experiment_submitted{}}),
            pools{});
}

TEST_F(wake_fixture, an_event_about_something_unknown_wakes_every_pool) {
  EXPECT_EQ(wake({instance_terminated{"i-unknown", "gone", 0}}),
            (pools{"cpu", "gpu"}));
  pool_configured p;
  p.pool = "cpu";
  EXPECT_EQ(wake({p}), (pools{"cpu", "gpu"}));
}

} // namespace
} // namespace det
