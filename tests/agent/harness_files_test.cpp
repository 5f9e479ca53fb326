#include "agent/harness_files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

using namespace det::agent;
using nlohmann::json;

namespace {

env_map trial_env() {
  return {{"DET_MASTER", "http://127.0.0.1:8080"},
          {"DET_CLUSTER_ID", "c-1"},
          {"DET_AGENT_ID", "agent-1"},
          {"DET_SLOT_IDS", "[0,1]"},
          {"DET_TASK_ID", "7"},
          {"DET_ALLOCATION_ID", "7.2"},
          {"DET_SESSION_TOKEN", "tok"},
          {"DET_TASK_TYPE", "TRIAL"},
          {"DET_TRIAL_ID", "7"},
          {"DET_EXPERIMENT_ID", "3"},
          {"DET_TRIAL_SEED", "7"},
          {"DET_HPARAMS", R"({"lr":0.1})"},
          {"DET_STEPS_COMPLETED", "20"},
          {"DET_TRIAL_RUN_ID", "2"},
          {"DET_LATEST_CHECKPOINT", "u-1"},
          {"DET_EXPERIMENT_CONFIG",
           R"({"checkpoint_storage":{"type":"shared_fs","host_path":"/mnt/ck",)"
           R"("storage_path":"s"},"debug":true})"}};
}

} // namespace

TEST(harness_files, info_files_carry_the_upstream_cluster_and_trial_fields) {
  auto files = info_files(trial_env());
  auto cluster = json::parse(files.at("cluster.json"));
  EXPECT_EQ(cluster["master_url"], "http://127.0.0.1:8080");
  EXPECT_EQ(cluster["slot_ids"], json::array({0, 1}));
  EXPECT_EQ(cluster["allocation_id"], "7.2");
  EXPECT_EQ(cluster["task_type"], "TRIAL");
  EXPECT_EQ(cluster["latest_checkpoint"], "u-1");
  EXPECT_TRUE(cluster["master_cert_file"].is_null());
  // Without the cluster's uuid, the configured id.
  EXPECT_EQ(cluster["cluster_id"], "c-1");
  auto trial = json::parse(files.at("trial.json"));
  EXPECT_EQ(trial["trial_id"], 7);
  EXPECT_EQ(trial["experiment_id"], 3);
  EXPECT_EQ(trial["hparams"]["lr"], 0.1);
  EXPECT_EQ(trial["steps_completed"], 20);
  EXPECT_EQ(trial["trial_run_id"], 2);
  EXPECT_EQ(trial["debug"], true);
  EXPECT_EQ(trial["config"]["checkpoint_storage"]["storage_path"], "s");
  auto rdzv = json::parse(files.at("rendezvous.json"));
  EXPECT_EQ(rdzv["container_rank"], 0);
  EXPECT_EQ(rdzv["container_slot_counts"], json::array({2}));
  EXPECT_EQ(json::parse(files.at("resources.json"))["gpu_uuids"],
            json::array());
}

TEST(harness_files, the_cluster_id_the_harness_sees_is_the_uuid_info_answers) {
  // TensorBoard files go under <storage>/<cluster_id>/tensorboard, where
  // upstream's tools look for GET /info's cluster_id.
  auto env = trial_env();
  env["DET_CLUSTER_UUID"] = "5f0c7e2a-uuid";
  auto cluster = json::parse(info_files(env).at("cluster.json"));
  EXPECT_EQ(cluster["cluster_id"], "5f0c7e2a-uuid");
}

TEST(harness_files, a_pod_of_a_multi_pod_allocation_gets_its_rank) {
  auto env = trial_env();
  env["DET_POD_RANK"] = "1";
  env["DET_NUM_PODS"] = "3";
  auto rdzv = json::parse(info_files(env).at("rendezvous.json"));
  EXPECT_EQ(rdzv["container_rank"], 1);
  EXPECT_EQ(rdzv["container_slot_counts"], json::array({2, 2, 2}));
  // The other pods' addresses are not known: none is made up.
  EXPECT_EQ(rdzv["container_addrs"], json::array());
  // A rank out of range or not a number is clamped, never trusted.
  env["DET_POD_RANK"] = "7";
  EXPECT_EQ(
      json::parse(info_files(env).at("rendezvous.json"))["container_rank"], 2);
  env["DET_NUM_PODS"] = "lots";
  rdzv = json::parse(info_files(env).at("rendezvous.json"));
  EXPECT_EQ(rdzv["container_rank"], 0);
  EXPECT_EQ(rdzv["container_addrs"], json::array({"127.0.0.1"}));
}

TEST(harness_files, no_checkpoint_is_null_not_an_empty_uuid) {
  auto env = trial_env();
  env["DET_LATEST_CHECKPOINT"] = "";
  auto cluster = json::parse(info_files(env).at("cluster.json"));
  EXPECT_TRUE(cluster["latest_checkpoint"].is_null());
}

TEST(harness_files, shared_fs_host_path_only_for_shared_fs_storage) {
  EXPECT_EQ(shared_fs_host_path(trial_env()), "/mnt/ck");
  auto env = trial_env();
  env["DET_EXPERIMENT_CONFIG"] =
      R"({"checkpoint_storage":{"type":"s3","bucket":"b"}})";
  EXPECT_EQ(shared_fs_host_path(env), "");
  env["DET_EXPERIMENT_CONFIG"] = "not json";
  EXPECT_EQ(shared_fs_host_path(env), "");
}

TEST(harness_files, written_files_and_environment_point_at_the_run_dir) {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path()
             / ("harness_files_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto env = trial_env();
  env["DET_EXPERIMENT_CONFIG"] = R"({"checkpoint_storage":{"type":"shared_fs",)"
                                 R"("host_path":")"
                                 + (dir / "ck").string() + R"("}})";
  auto err = write_harness_files(dir.string(), env, "/already/there");
  ASSERT_FALSE(err);
  EXPECT_EQ(env["DET_INFO_DIR"], (dir / "info").string());
  EXPECT_EQ(env["DET_SHARED_FS_PATH"], (dir / "ck").string());
  EXPECT_EQ(env["PYTHONPATH"], (dir / "python").string() + ":/already/there");
  for (auto name :
       {"cluster.json", "trial.json", "rendezvous.json", "resources.json"})
    EXPECT_TRUE(fs::exists(dir / "info" / name)) << name;
  std::ifstream shim{dir / "python" / "sitecustomize.py"};
  std::stringstream text;
  text << shim.rdbuf();
  EXPECT_NE(text.str().find("SHARED_FS_CONTAINER_PATH"), std::string::npos);
  EXPECT_TRUE(fs::is_directory(dir / "ck"));
  fs::remove_all(dir);
}

namespace {

/// Runs `command` with /bin/sh in `dir` with exactly the environment
/// `env`; its exit code (-1 when it did not exit).
int run_with(const std::filesystem::path& dir, const std::string& command,
             const env_map& env) {
  auto script = dir / "run.sh";
  {
    std::ofstream out{script};
    out << "cd '" << dir.string() << "' || exit 99\n";
    for (const auto& [k, v] : env)
      out << "export " << k << "='" << v << "'\n";
    out << command << "\n";
  }
  auto status =
      std::system(("env -i /bin/sh '" + script.string() + "'").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// A stand-in determined package whose launch layer exits 42 when run.
void write_fake_harness(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  fs::create_directories(root / "determined" / "exec");
  std::ofstream{root / "determined" / "__init__.py"} << "";
  std::ofstream{root / "determined" / "exec" / "__init__.py"} << "";
  std::ofstream{root / "determined" / "exec" / "launch.py"}
      << "import sys\nif __name__ == '__main__':\n    sys.exit(42)\n";
}

} // namespace

TEST(harness_files,
     a_trial_runs_through_the_launch_layer_when_the_harness_imports) {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path()
             / ("harness_launch_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto fake = dir / "fake";
  write_fake_harness(fake);
  auto env = trial_env();
  env["DET_EXPERIMENT_CONFIG"] = R"({"entrypoint": "exit 7"})";
  ASSERT_FALSE(write_harness_files((dir / "run").string(), env, ""));
  auto command = trial_command("exit 7", env);
  EXPECT_EQ(env["DET_ENTRYPOINT"], "exit 7");
  env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  // python3 -S: no site-packages, so an installed harness stays out of the
  // cases that must not see one; PYTHONPATH still reaches the fake.
  auto launcher = "exec python3 -S \"$DET_RUN_DIR/launch.py\"";
  env["PYTHONPATH"] = fake.string();
  EXPECT_EQ(run_with(dir, launcher, env), 42) << "the launch layer did not run";
  env.erase("PYTHONPATH");
  EXPECT_EQ(run_with(dir, launcher, env), 7) << "no harness: the entrypoint";
  env["PYTHONPATH"] = fake.string();
  env["DET_EXPERIMENT_CONFIG"] = R"({"name": "no entrypoint"})";
  EXPECT_EQ(run_with(dir, launcher, env), 7)
      << "a config without an entrypoint: the entrypoint as a command";
  env["DET_EXPERIMENT_CONFIG"] = R"({"entrypoint": "exit 7"})";
  // The command itself: python3 on PATH runs the launcher; without it the
  // entrypoint runs as a shell command.
  EXPECT_EQ(run_with(dir, command, env), 42);
  env["PATH"] = (dir / "empty").string();
  fs::create_directories(dir / "empty");
  EXPECT_EQ(run_with(dir, command, env), 7) << "no python3: the entrypoint";
  fs::remove_all(dir);
}
