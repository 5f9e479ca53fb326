// task_container_defaults.environment_variables (the master's and a pool's,
// list or {cpu, cuda, rocm}) reach an experiment's environment before its
// own variables, and a trial gets the list of its agent's slot type.

#include "conf/task_env.hpp"

#include "conf/experiment_config.hpp"
#include "conf/master_config.hpp"

#include <gtest/gtest.h>

using namespace det::conf;
using strings = std::vector<std::string>;

namespace {

const char* pools = "resource_pools:\n"
                    "  - pool_name: default\n"
                    "  - pool_name: gpu\n"
                    "    task_container_defaults:\n"
                    "      environment_variables:\n"
                    "        cuda: [NCCL_DEBUG=INFO]\n";

TEST(task_env, a_list_is_every_slot_types_and_a_pool_replaces_the_masters) {
  auto cfg = parse_master_config(std::string{"task_container_defaults:\n"
                                             "  environment_variables:\n"
                                             "    - A=1\n"}
                                 + pools);
  ASSERT_TRUE(cfg) << det::render(cfg.error());
  const auto& def = cfg->resource_pools.at(0).task_env;
  EXPECT_EQ(def.cpu, strings{"A=1"});
  EXPECT_EQ(def.cuda, strings{"A=1"});
  EXPECT_EQ(def.rocm, strings{"A=1"});
  const auto& gpu = cfg->resource_pools.at(1).task_env;
  EXPECT_TRUE(gpu.cpu.empty());
  EXPECT_EQ(gpu.cuda, strings{"NCCL_DEBUG=INFO"});
}

TEST(task_env, a_bad_variable_or_slot_type_is_refused_naming_its_path) {
  auto bad = parse_master_config("task_container_defaults:\n"
                                 "  environment_variables:\n"
                                 "    cpu: [A=1, NOEQUALS]\n"
                                 "    tpu: [B=2]\n");
  ASSERT_FALSE(bad);
  auto text = message_of(bad.error());
  EXPECT_NE(text.find("task_container_defaults.environment_variables.cpu[1]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("task_container_defaults.environment_variables.tpu"),
            std::string::npos)
      << text;
  auto exp = parse_experiment_config(
      "entrypoint: python3 train.py\n"
      "searcher: {name: single, metric: loss}\n"
      "environment: {environment_variables: {cuda: [=x]}}\n");
  ASSERT_FALSE(exp);
  EXPECT_NE(
      message_of(exp.error()).find("environment.environment_variables.cuda[0]"),
      std::string::npos)
      << message_of(exp.error());
}

TEST(task_env, the_pools_defaults_come_before_the_experiments_own) {
  auto master = parse_master_config(std::string{"task_container_defaults:\n"
                                                "  environment_variables:\n"
                                                "    - A=1\n"}
                                    + pools);
  ASSERT_TRUE(master) << det::render(master.error());
  auto d = experiment_defaults_from(*master);
  auto exp = parse_experiment_config(
      "entrypoint: python3 train.py\n"
      "searcher: {name: single, metric: loss}\n"
      "environment: {environment_variables: [A=2, B=3]}\n",
      d);
  ASSERT_TRUE(exp) << det::render(exp.error());
  auto vars = exp->filled["environment"]["environment_variables"];
  EXPECT_EQ(env_for_slot_type(vars, "cpu"), (strings{"A=1", "A=2", "B=3"}));
  auto on_gpu = parse_experiment_config(
      "entrypoint: python3 train.py\n"
      "searcher: {name: single, metric: loss}\n"
      "resources: {resource_pool: gpu}\n"
      "environment: {environment_variables: {cpu: [C=1]}}\n",
      d);
  ASSERT_TRUE(on_gpu) << det::render(on_gpu.error());
  auto gvars = on_gpu->filled["environment"]["environment_variables"];
  EXPECT_EQ(env_for_slot_type(gvars, "cuda"), strings{"NCCL_DEBUG=INFO"});
  EXPECT_EQ(env_for_slot_type(gvars, "cpu"), strings{"C=1"});
  EXPECT_EQ(env_for_slot_type(gvars, "rocm"), strings{});
}

TEST(task_env, a_trial_gets_the_list_of_its_agents_slot_type) {
  nlohmann::json map = {
      {"cpu", {"X=cpu"}}, {"cuda", {"X=cuda"}}, {"rocm", {"X=rocm"}}};
  EXPECT_EQ(env_for_slot_type(map, "cpu"), strings{"X=cpu"});
  EXPECT_EQ(env_for_slot_type(map, "cuda"), strings{"X=cuda"});
  EXPECT_EQ(env_for_slot_type(map, "gpu"), strings{"X=cuda"});
  EXPECT_EQ(env_for_slot_type(map, "rocm"), strings{"X=rocm"});
  EXPECT_EQ(env_for_slot_type(nlohmann::json::array({"Y=1"}), "cuda"),
            strings{"Y=1"});
  EXPECT_EQ(env_for_slot_type(nullptr, "cpu"), strings{});
}

} // namespace
