// The master's cluster gauges for CloudWatch from a replayed state.

#include "messages/errc.hpp"
#include "state/cluster_state.hpp"
#include "telemetry/cluster_gauges.hpp"

#include <gtest/gtest.h>

#include <map>

using namespace det;

namespace {

state::cluster_state sample() {
  state::cluster_state s;
  int64_t pos = 0;
  auto put = [&](const domain_event& ev) {
    recorded_event meta;
    meta.position = ++pos;
    auto err = state::apply(s, meta, ev);
    ASSERT_FALSE(err) << render(err);
  };
  pool_configured p;
  p.pool = "gpu-pool";
  p.provider = "local";
  p.max_instances = 2;
  put(p);
  agent_connected a;
  a.agent_id = "a1";
  a.pool = "gpu-pool";
  a.slots = 4;
  a.at_us = 1800000000000000;
  put(a);
  experiment_submitted e;
  e.experiment_id = 1;
  e.pool = "gpu-pool";
  e.owner = "determined";
  e.config = {{"name", "x"}, {"searcher", {{"name", "grid"}}}};
  e.at_us = 1800000000000000;
  put(e);
  for (int64_t id : {1, 2, 3}) {
    trial_created t;
    t.trial_id = id;
    t.experiment_id = 1;
    t.request_id = "r" + std::to_string(id);
    put(t);
  }
  trial_placed tp;
  tp.trial_id = 1;
  tp.allocation_id = "1.1";
  tp.assignments = {{"a1", {0}}};
  put(tp);
  return s;
}

} // namespace

TEST(cluster_gauges, slots_pending_trials_and_instances_per_pool) {
  auto d = telemetry::cluster_gauges(sample(), "c1", 42);
  std::map<std::string, double> by;
  for (const auto& x : d) {
    EXPECT_EQ(x.timestamp_ms, 42);
    EXPECT_EQ(x.dimensions[0],
              (std::pair<std::string, std::string>{"Cluster", "c1"}));
    EXPECT_EQ(x.dimensions[1],
              (std::pair<std::string, std::string>{"Pool", "gpu-pool"}));
    auto key = x.name;
    if (x.dimensions.size() == 3)
      key += "/" + x.dimensions[2].second;
    by[key] = x.value;
  }
  EXPECT_EQ(by["SlotsUsed"], 1);
  EXPECT_EQ(by["SlotsFree"], 3);
  EXPECT_EQ(by["PendingTrials"], 2);
  // Every instance state is listed, zeros included.
  EXPECT_EQ(by.count("Instances/pending"), 1u);
  EXPECT_EQ(by.count("Instances/running"), 1u);
  EXPECT_EQ(by.count("Instances/terminating"), 1u);
  EXPECT_EQ(by["Instances/running"], 0);
}
