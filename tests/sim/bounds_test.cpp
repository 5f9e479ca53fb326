#include "sim/bounds.hpp"

#include <gtest/gtest.h>

using namespace det::sim;

// Two 4-GPU jobs of an hour, back to back with a 100 s gap, on 8-GPU
// instances: work is 1 instance-hour, packing holds one level for 7200 s,
// and the clairvoyant bound pays one boot plus the gap (shorter than it).
TEST(sim_bounds, a_gap_shorter_than_a_boot_is_bridged) {
  std::vector<job> jobs{{0, 3600, 4, ""}, {3700, 3600, 4, ""}};
  auto b = compute_bounds(jobs, 8, 180);
  EXPECT_DOUBLE_EQ(b.work_h, 1.0);
  EXPECT_DOUBLE_EQ(b.pack_h, 2.0);
  EXPECT_DOUBLE_EQ(b.clairvoyant_h, (7200.0 + 180 + 100) / 3600);
  EXPECT_EQ(b.zero_wait_peak_gpus, 4);
}

TEST(sim_bounds, a_gap_longer_than_a_boot_pays_a_boot) {
  std::vector<job> jobs{{0, 3600, 8, ""}, {5000, 3600, 8, ""}};
  auto b = compute_bounds(jobs, 8, 180);
  EXPECT_DOUBLE_EQ(b.clairvoyant_h, (7200.0 + 180 + 180) / 3600);
}

TEST(sim_bounds, overlapping_jobs_need_two_levels) {
  std::vector<job> jobs{{0, 100, 6, ""}, {0, 100, 6, ""}};
  auto b = compute_bounds(jobs, 8, 0);
  EXPECT_DOUBLE_EQ(b.pack_h, 200.0 / 3600);
  EXPECT_DOUBLE_EQ(b.work_h, 1200.0 / 8 / 3600);
  EXPECT_EQ(b.zero_wait_peak_gpus, 12);
}
