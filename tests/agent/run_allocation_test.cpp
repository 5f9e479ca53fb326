#include "agent/run_allocation.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

using det::agent::run_allocation;
using det::agent::run_allocation_options;

namespace {

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/run-allocation-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

} // namespace

TEST(run_allocation, a_missing_start_file_exits_1) {
  run_allocation_options o;
  o.start_file = "/nonexistent/start.json";
  o.master_url = "http://127.0.0.1:1";
  EXPECT_EQ(run_allocation(o), 1);
}

TEST(run_allocation, a_frame_that_is_not_a_start_exits_1) {
  run_allocation_options o;
  o.master_url = "http://127.0.0.1:1";
  o.start_file = write_temp(R"({"v":1,"type":"kill","allocation_id":"1.1"})");
  EXPECT_EQ(run_allocation(o), 1);
  std::remove(o.start_file.c_str());
  o.start_file = write_temp("not json");
  EXPECT_EQ(run_allocation(o), 1);
  std::remove(o.start_file.c_str());
}
