// The /proc and nvidia-smi readers, and the sampler with a fake nvidia-smi
// that prints the real CSV format.

#include "telemetry/host_metrics.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

using namespace det::telemetry;

namespace {

const char* proc_stat_a = "cpu  100 0 50 800 50 0 0 0 0 0\n"
                          "cpu0 50 0 25 400 25 0 0 0 0 0\n"
                          "intr 12345\n";
const char* proc_stat_b = "cpu  160 0 70 900 70 0 0 0 0 0\n"
                          "cpu0 80 0 35 450 35 0 0 0 0 0\n";
const char* meminfo = "MemTotal:       16384000 kB\n"
                      "MemFree:         1000000 kB\n"
                      "MemAvailable:    4096000 kB\n"
                      "Buffers:          100000 kB\n";

std::string tmpdir() {
  auto d = std::filesystem::temp_directory_path()
           / ("det-host-metrics-" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d.string();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream{path} << text;
}

} // namespace

TEST(host_metrics, cpu_use_is_busy_time_over_total_between_two_readings) {
  auto a = parse_proc_stat(proc_stat_a);
  auto b = parse_proc_stat(proc_stat_b);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->total, 1000u);
  EXPECT_EQ(a->busy, 150u);
  // busy +80 of total +200 (idle +100, iowait +20)
  EXPECT_DOUBLE_EQ(*cpu_percent(*a, *b), 40.0);
  EXPECT_FALSE(cpu_percent(*a, *a));
  EXPECT_FALSE(parse_proc_stat("intr 1\n"));
  EXPECT_FALSE(parse_proc_stat("cpu  1 x 3\n"));
}

TEST(host_metrics, memory_comes_from_memtotal_and_memavailable) {
  auto m = parse_meminfo(meminfo);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->total_bytes, 16384000ull * 1024);
  EXPECT_EQ(m->available_bytes, 4096000ull * 1024);
  EXPECT_FALSE(parse_meminfo("MemTotal: 10 kB\n"));
}

TEST(host_metrics, nvidia_smi_csv_with_na_and_junk_lines) {
  auto gpus = parse_nvidia_smi_csv("0, GPU-aaa, 87, 30512, 40960\n"
                                   "1, GPU-bbb, [N/A], 1024, 40960\n"
                                   "No devices were found\n"
                                   "x, GPU-ccc, 1, 2, 3\n");
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].index, "0");
  EXPECT_EQ(gpus[0].uuid, "GPU-aaa");
  EXPECT_EQ(*gpus[0].utilization_percent, 87.0);
  EXPECT_EQ(*gpus[0].memory_used_mib, 30512.0);
  EXPECT_FALSE(gpus[1].utilization_percent);
  auto d = gpu_datums(gpus, {{"Cluster", "c"}}, 5);
  // GPU 0: 3 datums; GPU 1: memory used and utilisation, no GPUUtilization.
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].name, "GPUUtilization");
  EXPECT_EQ(d[0].dimensions.back(),
            (std::pair<std::string, std::string>{"GPU", "0"}));
  EXPECT_EQ(d[2].name, "GPUMemoryUtilization");
  EXPECT_NEAR(d[2].value, 100.0 * 30512 / 40960, 1e-9);
  EXPECT_EQ(d[3].name, "GPUMemoryUsed");
  EXPECT_EQ(d[3].unit, "Megabytes");
}

TEST(host_metrics, sampler_reads_proc_and_the_nvidia_smi_on_its_path) {
  auto dir = tmpdir();
  write(dir + "/stat", proc_stat_a);
  write(dir + "/meminfo", meminfo);
  host_sampler_options o;
  o.proc_root = dir;
  o.nvidia_smi = std::string{DET_TEST_TELEMETRY_DIR} + "/fake_nvidia_smi";
  o.dimensions = {{"Cluster", "c1"}, {"Pool", "gpu-pool"}, {"Instance", "i-1"}};
  host_sampler s{o};
  auto first = s.sample(1000);
  std::map<std::string, int> names;
  for (const auto& d : first)
    ++names[d.name];
  EXPECT_EQ(names.count("CPUUtilization"), 0u); // needs two readings
  EXPECT_EQ(names["MemoryUtilization"], 1);
  EXPECT_EQ(names["GPUUtilization"], 1); // GPU 1 says [N/A]
  EXPECT_EQ(names["GPUMemoryUsed"], 2);
  write(dir + "/stat", proc_stat_b);
  auto second = s.sample(2000);
  bool cpu = false;
  for (const auto& d : second)
    if (d.name == "CPUUtilization") {
      cpu = true;
      EXPECT_DOUBLE_EQ(d.value, 40.0);
      EXPECT_EQ(d.dimensions.size(), 3u);
      EXPECT_EQ(d.timestamp_ms, 2000);
    }
  EXPECT_TRUE(cpu);
  std::filesystem::remove_all(dir);
}

TEST(host_metrics, no_nvidia_smi_means_no_gpu_metrics_and_no_error) {
  host_sampler_options o;
  o.nvidia_smi = "/nonexistent/nvidia-smi";
  host_sampler s{o};
  for (const auto& d : s.sample(1))
    EXPECT_EQ(d.name.rfind("GPU", 0), std::string::npos) << d.name;
}
