// Consolidation in det-sim, on traces whose answer is known by hand:
// 8-GPU instances that boot in 180 s, a 180 s idle period, consolidate
// after 600 s, a move costs 120 s.
#include "sim/bounds.hpp"
#include "sim/engine.hpp"
#include "sim/figures.hpp"
#include "sim/policies.hpp"
#include "tests/sim/hand_config.hpp"

#include <gtest/gtest.h>

namespace det::sim::consolidation_tests {
namespace {

sim_config hand_config() {
  auto c = test::hand_config();
  c.move_cost_s = 120;
  return c;
}

policy_spec named(const std::string& n) {
  auto p = *policy_named(n, 180);
  p.consolidate_after_s = 600;
  return p;
}

// At 0 the fleet packs 7+1 GPUs on instance A and 5 on B; both are up at
// 180. The 7-GPU job ends at 1180 and leaves the 1-GPU job alone on A,
// while B has 3 free GPUs. Without consolidation both instances run until
// 20180 and idle until 20360. With it, at 1780 (under-used for 600 s) the
// 1-GPU job moves to B: it had 18400 s to go, 18520 with the move, so it
// ends at 20300 and B idles until 20480; A drains until 1900.
std::vector<job> stranded_job() {
  return {{0, 1000, 7, ""}, {0, 20000, 1, ""}, {0, 20000, 5, ""}};
}

} // namespace

TEST(sim_consolidation, a_job_left_alone_moves_and_its_instance_goes) {
  auto jobs = stranded_job();
  auto plain = simulate(jobs, hand_config(), named("ours"));
  EXPECT_DOUBLE_EQ(plain.instance_hours, 2 * 20360.0 / 3600);
  EXPECT_EQ(plain.moves, 0);

  auto r = simulate(jobs, hand_config(), named("ours+consolidate"));
  EXPECT_EQ(r.launched, 2);
  EXPECT_EQ(r.moves, 1);
  EXPECT_EQ(r.jobs_moved, 1);
  EXPECT_EQ(r.most_moves_of_a_job, 1);
  EXPECT_EQ(r.consolidated_instances, 1);
  EXPECT_EQ(r.restarts, 0);
  EXPECT_DOUBLE_EQ(r.move_gpu_hours, 120.0 / 3600);
  EXPECT_DOUBLE_EQ(r.busy_gpu_hours,
                   (7 * 1000.0 + 20000 + 120 + 5 * 20000) / 3600);
  EXPECT_DOUBLE_EQ(r.instance_hours, (1900.0 + 20480) / 3600);
  EXPECT_EQ(r.instances_at_end, 0);
  EXPECT_EQ(r.never_started, 0);
  // Saved: A's 20360 - 1900 s, less the move's 120 s on B.
  EXPECT_DOUBLE_EQ(plain.instance_hours - r.instance_hours,
                   (20360.0 - 1900 - 120) / 3600);
}

TEST(sim_consolidation, the_move_cost_is_charged_to_the_job_and_the_source) {
  auto jobs = stranded_job();
  auto c = hand_config();
  c.move_cost_s = 300;
  auto r = simulate(jobs, c, named("ours+consolidate"));
  ASSERT_EQ(r.moves, 1);
  EXPECT_DOUBLE_EQ(r.move_gpu_hours, 300.0 / 3600);
  // A drains until 2080; the job ends at 1780 + 18400 + 300 = 20480.
  EXPECT_DOUBLE_EQ(r.instance_hours, (2080.0 + 20660) / 3600);
}

TEST(sim_consolidation, nothing_moves_before_the_period_or_while_jobs_wait) {
  auto jobs = stranded_job();
  auto p = named("ours+consolidate");
  p.consolidate_after_s = 30000; // longer than the whole run
  auto r = simulate(jobs, hand_config(), p);
  EXPECT_EQ(r.moves, 0);
  EXPECT_DOUBLE_EQ(r.instance_hours, 2 * 20360.0 / 3600);
  // An 8-GPU job arrives at 1700 and waits for a new instance C until
  // 1880: nothing moves while it waits; the move comes at 1880, the job
  // still ends at 20300, A drains until 2000 and C bills 1700..22060.
  jobs.push_back({1700, 20000, 8, ""});
  auto waited = simulate(jobs, hand_config(), named("ours+consolidate"));
  EXPECT_EQ(waited.moves, 1);
  EXPECT_DOUBLE_EQ(waited.instance_hours, (2000.0 + 20480 + 20360) / 3600);
}

TEST(sim_consolidation, the_same_inputs_give_the_same_bytes) {
  std::vector<job> jobs;
  for (int k = 0; k < 60; ++k)
    jobs.push_back(
        {k * 97, 500 + (k * 7919) % 20000, 1 + (k % 5 == 0 ? 3 : 0), ""});
  auto c = hand_config();
  c.boot_jitter_s = 30;
  auto b = compute_bounds(jobs, c.gpus_per_instance, c.boot_s);
  auto once = figures(jobs, simulate(jobs, c, named("ours+consolidate")), b);
  auto again = figures(jobs, simulate(jobs, c, named("ours+consolidate")), b);
  EXPECT_EQ(once.dump(), again.dump());
  EXPECT_GT(once["moves"].get<int>(), 0);
  // Every GPU-second is the trace's work or a move's cost.
  double work_gpu_h = 0;
  for (const auto& j : jobs)
    work_gpu_h += static_cast<double>(j.duration_s) * j.gpus / 3600;
  auto r = simulate(jobs, c, named("ours+consolidate"));
  EXPECT_NEAR(r.busy_gpu_hours, work_gpu_h + r.move_gpu_hours, 1e-6);
}

} // namespace det::sim::consolidation_tests
