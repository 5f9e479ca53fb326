#include "agent/options.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

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
