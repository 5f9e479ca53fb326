#include "agent/options.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

using namespace det::agent;

namespace {

struct fake_env {
  std::map<std::string, std::string> vars;
  std::function<const char*(const char*)> fn() const {
    return [this](const char* name) -> const char* {
      auto i = vars.find(name);
      return i == vars.end() ? nullptr : i->second.c_str();
    };
  }
};

gpu_probe no_gpus() {
  return [] { return std::optional<std::vector<int>>{}; };
}

caf::expected<agent_settings> resolve(const std::vector<std::string>& argv,
                                      const fake_env& env = {},
                                      gpu_probe probe = no_gpus()) {
  auto args = parse_agent_args(argv);
  if (!args)
    return args.error();
  return resolve_settings(*args, env.fn(), probe,
                          [] { return std::string{"host-1"}; });
}

std::string error_of(const std::vector<std::string>& argv) {
  auto r = parse_agent_args(argv);
  return r ? "" : det::render(r.error());
}

} // namespace

TEST(agent_options, idle_shutdown_after_comes_from_its_flag) {
  auto off = resolve({"--master-url", "http://10.0.0.5:9090"});
  ASSERT_TRUE(off) << det::render(off.error());
  EXPECT_EQ(off->cfg.idle_shutdown_after.count(), 0);
  auto on = resolve({"--idle-shutdown-after", "3m"});
  ASSERT_TRUE(on) << det::render(on.error());
  EXPECT_EQ(on->cfg.idle_shutdown_after, std::chrono::minutes{3});
  auto bad = resolve({"--idle-shutdown-after", "3 parsecs"});
  ASSERT_FALSE(bad);
  EXPECT_NE(det::render(bad.error()).find("idle_shutdown.after"),
            std::string::npos);
}

TEST(agent_options, flags_override_the_defaults) {
  auto s = resolve({"--master-url", "http://10.0.0.5:9090", "--resource-pool",
                    "gpu", "--slots=4", "--token", "sekrit", "--agent-id", "a1",
                    "--work-dir", "/var/det"});
  ASSERT_TRUE(s) << det::render(s.error());
  EXPECT_EQ(s->cfg.master.host, "10.0.0.5");
  EXPECT_EQ(s->cfg.master.port, 9090);
  EXPECT_EQ(s->cfg.resource_pool, "gpu");
  EXPECT_EQ(s->slots, 4);
  EXPECT_EQ(s->slot_type, "cpu");
  EXPECT_EQ(s->cfg.token, "sekrit");
  EXPECT_EQ(s->agent_id, "a1");
  EXPECT_EQ(s->cfg.work_dir, "/var/det");
}

TEST(agent_options, agent_id_defaults_to_the_hostname) {
  auto s = resolve({});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->agent_id, "host-1");
  EXPECT_GE(s->slots, 1);
}

TEST(agent_options, environment_is_read_and_flags_win_over_it) {
  fake_env env{{{"DET_MASTER", "http://m:1234"}, {"DET_AGENT_TOKEN", "t"}}};
  auto s = resolve({}, env);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cfg.master.host, "m");
  EXPECT_EQ(s->cfg.token, "t");
  s = resolve({"--master-url", "http://other:1"}, env);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cfg.master.host, "other");
}

TEST(agent_options, config_file_is_loaded_and_flags_override_it) {
  auto path =
      testing::TempDir() + "agent-" + std::to_string(getpid()) + ".yaml";
  {
    std::ofstream out{path};
    out << "master_url: http://filehost:8081\nresource_pool: cpu-pool\n"
           "slots: 3\n";
  }
  auto s = resolve({"--config", path});
  ASSERT_TRUE(s) << det::render(s.error());
  EXPECT_EQ(s->cfg.master.host, "filehost");
  EXPECT_EQ(s->cfg.resource_pool, "cpu-pool");
  EXPECT_EQ(s->slots, 3);
  s = resolve({"--config", path, "--slots", "5"});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->slots, 5);
  std::remove(path.c_str());
}

TEST(agent_options, gpus_found_by_nvidia_smi_become_cuda_slots) {
  auto s = resolve({"--slots", "8"}, {}, [] {
    return std::optional<std::vector<int>>{std::vector<int>{0, 1}};
  });
  ASSERT_TRUE(s);
  EXPECT_EQ(s->slot_type, "cuda");
  EXPECT_EQ(s->slots, 2);
}

TEST(agent_options, nvidia_smi_output_is_parsed_one_index_per_line) {
  EXPECT_EQ(parse_gpu_indices("0\n1\n 2\n"), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(parse_gpu_indices("").empty());
  EXPECT_TRUE(parse_gpu_indices("NVIDIA-SMI has failed\n").empty());
}

TEST(agent_options, bad_arguments_are_refused_with_a_reason_naming_them) {
  EXPECT_NE(error_of({"--slots", "many"}).find("--slots"), std::string::npos);
  EXPECT_NE(error_of({"--slots", "-1"}).find("--slots"), std::string::npos);
  EXPECT_NE(error_of({"--frobnicate", "1"}).find("--frobnicate"),
            std::string::npos);
  EXPECT_NE(error_of({"--master-url"}).find("--master-url"), std::string::npos);
  EXPECT_NE(error_of({"stray"}).find("stray"), std::string::npos);
}

TEST(agent_options, malformed_master_url_is_refused_naming_the_field) {
  auto s = resolve({"--master-url", "ftp://x"});
  ASSERT_FALSE(s);
  EXPECT_NE(det::render(s.error()).find("master_url"), std::string::npos);
}

TEST(agent_options, help_is_recognised) {
  auto a = parse_agent_args({"--help"});
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->help);
  EXPECT_NE(std::string{usage()}.find("--master-url"), std::string::npos);
}

namespace {

// A fake nvidia-smi first on PATH: it answers only the query det-agent
// makes (anything else exits 2, as the real one does for a bad flag), in
// the real CSV format, or fails like a machine without a driver.
class fake_nvidia_smi : public ::testing::Test {
protected:
  void SetUp() override {
    char dir[] = "/tmp/det-fake-smi-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    old_path_ = std::getenv("PATH") ? std::getenv("PATH") : "";
    setenv("PATH", (dir_ + ":" + old_path_).c_str(), 1);
  }
  void TearDown() override {
    setenv("PATH", old_path_.c_str(), 1);
    std::remove((dir_ + "/nvidia-smi").c_str());
    rmdir(dir_.c_str());
  }
  void script(const std::string& body) {
    std::ofstream(dir_ + "/nvidia-smi")
        << "#!/bin/sh\n"
           "[ \"$*\" = \"--query-gpu=index --format=csv,noheader\" ] || "
           "{ echo \"unexpected: $*\" >&2; exit 2; }\n"
        << body;
    chmod((dir_ + "/nvidia-smi").c_str(), 0755);
  }
  std::string dir_;
  std::string old_path_;
};

} // namespace

TEST_F(fake_nvidia_smi, four_gpus_it_lists_become_four_cuda_slots) {
  script("printf '0\\n1\\n2\\n3\\n'\n");
  auto gpus = probe_nvidia_gpus();
  ASSERT_TRUE(gpus);
  EXPECT_EQ(*gpus, (std::vector<int>{0, 1, 2, 3}));
  auto s = resolve({}, {}, probe_nvidia_gpus);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->slot_type, "cuda");
  EXPECT_EQ(s->slots, 4);
}

TEST_F(fake_nvidia_smi, a_machine_whose_driver_fails_has_cpu_slots) {
  script("echo 'NVIDIA-SMI has failed because it couldn'\"'\"'t communicate "
         "with the NVIDIA driver.'\nexit 9\n");
  EXPECT_FALSE(probe_nvidia_gpus());
  auto s = resolve({"--slots", "3"}, {}, probe_nvidia_gpus);
  ASSERT_TRUE(s);
  EXPECT_NE(s->slot_type, "cuda");
  EXPECT_EQ(s->slots, 3);
}
