// Small traces whose right answer is known by hand: 8-GPU instances that
// boot in exactly 180 s, no faults.
#include "sim/engine.hpp"
#include "sim/policies.hpp"
#include "tests/sim/hand_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace det::sim;

namespace {

using det::sim::test::hand_config;

policy_spec named(const std::string& n, int64_t ours_idle_s = 180) {
  return *policy_named(n, ours_idle_s);
}

} // namespace

// Launch at 0, agent at 180, job runs 180..3780, idle until 3960.
TEST(sim_engine, one_job_waits_one_boot_and_bills_until_the_idle_timeout) {
  std::vector<job> jobs{{0, 3600, 1, ""}};
  auto r = simulate(jobs, hand_config(), named("ours"));
  ASSERT_EQ(r.waits.size(), 1u);
  EXPECT_EQ(r.waits[0], 180);
  EXPECT_EQ(r.launched, 1);
  EXPECT_DOUBLE_EQ(r.instance_hours, 3960.0 / 3600);
  EXPECT_DOUBLE_EQ(r.cost, 3960.0 / 3600 * 10);
  EXPECT_EQ(r.instances_at_end, 0);
  EXPECT_EQ(r.never_started, 0);
}

TEST(sim_engine, a_gang_of_two_instances_starts_when_both_are_up) {
  std::vector<job> jobs{{0, 1000, 16, ""}};
  for (const char* p : {"ours", "det-20m", "karpenter"}) {
    auto r = simulate(jobs, hand_config(), named(p));
    EXPECT_EQ(r.launched, 2) << p;
    EXPECT_EQ(r.waits[0], 180) << p;
  }
  auto ours = simulate(jobs, hand_config(), named("ours"));
  EXPECT_DOUBLE_EQ(ours.instance_hours, 2 * 1360.0 / 3600);
}

// Determined never scales up for a gang above one instance that is not a
// multiple of it; the master's own policy reports it as never fitting
// instead of leaving it waiting. Neither buys an instance for it.
TEST(sim_engine, a_gang_no_instance_set_can_hold_is_never_started) {
  std::vector<job> jobs{{0, 1000, 12, ""}};
  for (const char* p : {"ours", "det-20m"}) {
    auto r = simulate(jobs, hand_config(), named(p));
    EXPECT_EQ(r.never_started, 1) << p;
    EXPECT_EQ(r.launched, 0) << p;
  }
}

// The first job ends at 1180; the next comes 100 s later. An idle period
// of 180 s keeps the instance for it; Karpenter's 0 s drops it and boots
// a new one.
TEST(sim_engine, an_idle_timeout_longer_than_the_gap_bridges_it) {
  std::vector<job> jobs{{0, 1000, 1, ""}, {1280, 1000, 1, ""}};
  auto ours = simulate(jobs, hand_config(), named("ours"));
  EXPECT_EQ(ours.launched, 1);
  EXPECT_EQ(ours.waits[1], 0);
  EXPECT_DOUBLE_EQ(ours.instance_hours, (2280.0 + 180) / 3600);
  auto k = simulate(jobs, hand_config(), named("karpenter"));
  EXPECT_EQ(k.launched, 2);
  EXPECT_EQ(k.waits[1], 180);
  EXPECT_DOUBLE_EQ(k.instance_hours, (1180.0 + 1180) / 3600);
}

// Determined sums pending slots without subtracting free ones: two 1-GPU
// jobs submitted together buy one instance, not two.
TEST(sim_engine, determined_launches_by_pending_slots_per_instance) {
  std::vector<job> jobs{{0, 100, 1, ""}, {0, 100, 1, ""}, {0, 100, 8, ""}};
  auto r = simulate(jobs, hand_config(), named("det-20m"));
  EXPECT_EQ(r.launched, 2); // ceil(10 / 8)
  EXPECT_EQ(r.never_started, 0);
}

TEST(sim_engine, a_capped_fleet_queues_and_still_runs_every_job) {
  auto c = hand_config();
  c.max_instances = 1;
  std::vector<job> jobs{{0, 1000, 8, ""}, {0, 1000, 8, ""}};
  auto r = simulate(jobs, c, named("ours"));
  EXPECT_EQ(r.launched, 1);
  EXPECT_EQ(r.waits[0], 180);
  EXPECT_EQ(r.waits[1], 1180);
  EXPECT_EQ(r.never_started, 0);
}

TEST(sim_engine, the_same_seed_gives_the_same_run) {
  auto c = hand_config();
  c.boot_jitter_s = 60;
  c.reclaims_per_instance_hour = 0.5;
  c.checkpoint_s = 600;
  std::vector<job> jobs;
  for (int i = 0; i < 60; ++i)
    jobs.push_back({i * 97, 500 + (i * 131) % 4000, 1 << (i % 4), ""});
  auto a = simulate(jobs, c, named("ours"));
  auto b = simulate(jobs, c, named("ours"));
  EXPECT_EQ(a.waits, b.waits);
  EXPECT_DOUBLE_EQ(a.instance_hours, b.instance_hours);
  c.seed = 2;
  auto d = simulate(jobs, c, named("ours"));
  EXPECT_NE(a.instance_hours, d.instance_hours);
}

TEST(sim_policies, every_listed_name_is_known_and_the_defaults_are_listed) {
  for (const auto& n : policy_names()) {
    auto p = policy_named(n, 180);
    ASSERT_TRUE(p) << n;
    EXPECT_EQ(p->name, n);
  }
  for (const auto& n : standard_policy_names())
    EXPECT_NE(std::find(policy_names().begin(), policy_names().end(), n),
              policy_names().end())
        << n;
  EXPECT_NE(joined(policy_names()).find("ours+self-stop-drop-exits"),
            std::string::npos);
  EXPECT_FALSE(policy_named("magic", 180));
}
