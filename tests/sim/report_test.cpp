#include "sim/figures.hpp"
#include "sim/svg_report.hpp"

#include <gtest/gtest.h>

using namespace det::sim;

TEST(sim_report, percentiles_are_nearest_rank) {
  std::vector<int64_t> v{5, 1, 4, 2, 3};
  EXPECT_EQ(percentile(v, 50), 3);
  EXPECT_EQ(percentile(v, 95), 5);
  EXPECT_EQ(percentile({}, 50), 0);
}

TEST(sim_report, figures_split_waits_by_group_and_gang) {
  std::vector<job> jobs{{0, 10, 1, "a"}, {0, 10, 16, "b"}, {0, 10, 1, "a"}};
  run_result r;
  r.policy = "x";
  r.instance_hours = 2;
  r.waits = {10, 300, -1};
  r.never_started = 1;
  lower_bounds b;
  b.work_h = 1;
  b.clairvoyant_h = 1.6;
  auto f = figures(jobs, r, b);
  EXPECT_DOUBLE_EQ(f["overhead_above_work_pct"].get<double>(), 100.0);
  EXPECT_EQ(f["wait_by_group"]["a"]["jobs"], 1);
  EXPECT_EQ(f["wait_by_gang"]["16"]["p95_s"], 300);
  EXPECT_EQ(f["longest_wait_large_gangs_s"], 300);
  EXPECT_EQ(f["never_started"], 1);
}

TEST(sim_report, the_svg_has_a_column_per_policy) {
  run_result a;
  a.policy = "ours";
  a.series = {{0, 1, 8, 0}, {100, 2, 9, 3}};
  auto b = a;
  b.policy = "det-20m";
  auto svg = svg_report("t", {a, b}, lower_bounds{}, 8);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find(">ours<"), std::string::npos);
  EXPECT_NE(svg.find(">det-20m<"), std::string::npos);
  size_t lines = 0;
  for (size_t p = svg.find("<polyline"); p != std::string::npos;
       p = svg.find("<polyline", p + 1))
    ++lines;
  EXPECT_EQ(lines, 6u);
}
