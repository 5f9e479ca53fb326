#include "sim/trace.hpp"

#include <gtest/gtest.h>

using namespace det::sim;

TEST(sim_trace, generic_csv_reads_jobs_with_and_without_groups) {
  trace t;
  std::string error;
  ASSERT_TRUE(parse_trace("submit,duration,gpus,group\n30,100,2,a\n10,50,1\n",
                          trace_format::generic, t, error))
      << error;
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].submit_s, 10); // sorted by submission
  EXPECT_EQ(t.jobs[0].group, "");
  EXPECT_EQ(t.jobs[1].gpus, 2);
  EXPECT_EQ(t.jobs[1].group, "a");
}

TEST(sim_trace, itp_rows_skip_jobs_without_gpus) {
  trace t;
  std::string error;
  ASSERT_TRUE(parse_trace("job_id,submission_time,duration,num_gpu\n"
                          "x,5810,288476,16\ny,5900,10,0\n",
                          trace_format::itp, t, error));
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].duration_s, 288476);
  EXPECT_EQ(t.skipped, 1u);
}

TEST(sim_trace, philly_timestamps_become_seconds_from_the_first_job) {
  trace t;
  std::string error;
  ASSERT_TRUE(parse_trace("timestamp,duration,num_gpus,gpu_time,cluster\n"
                          "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
                          "2017-10-09 06:13:03,2951.0,1,2951.0,6214e9\n",
                          trace_format::philly, t, error))
      << error;
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].submit_s, 0);
  EXPECT_EQ(t.jobs[1].submit_s, 48 * 60 + 52);
  EXPECT_EQ(t.jobs[1].group, "11cb48");
  EXPECT_EQ(t.origin_epoch_s, parse_utc("2017-10-09 06:13:03"));
  EXPECT_EQ(parse_utc("1970-01-02 00:00:01"), 86401);
}

TEST(sim_trace, a_malformed_line_is_named) {
  trace t;
  std::string error;
  EXPECT_FALSE(
      parse_trace("1,2,3\n4,five,6\n", trace_format::generic, t, error));
  EXPECT_EQ(error, "line 2: malformed job");
}

TEST(sim_trace, slice_keeps_a_window_and_shifts_it_to_zero) {
  trace t;
  std::string error;
  ASSERT_TRUE(parse_trace("0,1,1\n100,1,1\n200,1,1\n", trace_format::generic, t,
                          error));
  auto s = slice(t, 100, 200);
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs[0].submit_s, 0);
}
