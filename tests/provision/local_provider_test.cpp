// The local provider on a host shared by several clusters: each keeps its
// agents in a folder of its own under one base (work_dir), and never
// lists, adopts, signals or deletes another cluster's. Its "agent" is a
// shell script that waits (its command line names its id, as det-agent's).

#include "provision/local_provider.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace det::provision {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct local_provider_test : ::testing::Test {
  fs::path base = fs::temp_directory_path()
                  / ("det-local-provider-test-" + std::to_string(getpid()));

  void SetUp() override {
    fs::remove_all(base);
    fs::create_directories(base);
    std::ofstream{base / "agent.sh"} << "#!/bin/sh\n"
                                     << "while :; do sleep 1; done\n";
    fs::permissions(base / "agent.sh", fs::perms::owner_all);
  }

  void TearDown() override {
    for (auto pid : started)
      if (kill(pid, SIGKILL) == 0)
        waitpid(pid, nullptr, 0);
    fs::remove_all(base);
  }

  local_provider_options options(const std::string& cluster,
                                 const std::string& owner) {
    local_provider_options o;
    o.local.work_dir = (base / "agents").string();
    o.local.agent_binary = (base / "agent.sh").string();
    o.pool = "default";
    o.master_url = "http://127.0.0.1:1";
    o.cluster_id = cluster;
    o.owner = owner;
    return o;
  }

  pid_t pid_of(const local_provider& p, const std::string& id) {
    std::ifstream in{fs::path{p.cluster_dir()} / id / "pid"};
    long pid = 0;
    in >> pid;
    started.push_back(static_cast<pid_t>(pid));
    return static_cast<pid_t>(pid);
  }

  /// Polls (bounded) until `pid` has ended; reaps it if it is our child.
  bool ends(pid_t pid) {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid, nullptr, WNOHANG) == pid || kill(pid, 0) != 0)
        return true;
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  std::vector<pid_t> started;
};

mode_t mode_of(const std::string& path) {
  struct stat st = {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST_F(local_provider_test, an_agent_binary_given_relative_to_the_master_runs) {
  // As for a master started as ./build/bin/det-master: the path is the
  // master's working folder's, not the agent's own folder's.
  auto o = options("c-rel", "owner-a");
  o.local.agent_binary =
      "./" + fs::relative(base / "agent.sh", fs::current_path()).string();
  local_provider p{o};
  ASSERT_FALSE(p.start("local-default-1", 1, "tok-1"));
  auto pid = pid_of(p, "local-default-1");
  ASSERT_GT(pid, 0);
  EXPECT_EQ(p.alive(), std::set<std::string>{"local-default-1"});
}

TEST_F(local_provider_test,
       a_bare_agent_name_is_found_beside_a_master_started_by_relative_path) {
  // det-master started as ./build/bin/det-master with the default
  // agent_binary (a bare name): the agent beside the master runs, though
  // it is not in PATH and the agent starts in a folder of its own.
  auto o = options("c-bare", "owner-a");
  o.local.agent_binary = "agent.sh";
  o.bin_dir = "./" + fs::relative(base, fs::current_path()).string();
  local_provider p{o};
  ASSERT_FALSE(p.start("local-default-1", 1, "tok-1"));
  ASSERT_GT(pid_of(p, "local-default-1"), 0);
  EXPECT_EQ(p.alive(), std::set<std::string>{"local-default-1"});
}

TEST_F(local_provider_test,
       a_cluster_keeps_its_agents_in_a_private_folder_named_by_its_cluster_id) {
  local_provider p{options("c-1", "owner-a")};
  EXPECT_EQ(p.cluster_dir(), (base / "agents" / "c-1").string());
  ASSERT_FALSE(p.start("local-default-1", 1, "tok-1"));
  pid_of(p, "local-default-1");
  EXPECT_EQ(mode_of(p.cluster_dir()), 0700u);
  EXPECT_EQ(mode_of(p.cluster_dir() + "/local-default-1"), 0700u);
  std::ifstream owner{p.cluster_dir() + "/owner"};
  std::string text;
  std::getline(owner, text);
  EXPECT_EQ(text, "owner-a");
  EXPECT_EQ(p.alive(), std::set<std::string>{"local-default-1"});
  // The same cluster's next master adopts it.
  local_provider again{options("c-1", "owner-a")};
  EXPECT_EQ(again.cluster_dir(), p.cluster_dir());
  EXPECT_EQ(again.alive(), std::set<std::string>{"local-default-1"});
}

TEST_F(
    local_provider_test,
    an_agent_started_just_before_its_master_died_is_found_without_a_pid_file) {
  local_provider p{options("c-1", "owner-a")};
  ASSERT_FALSE(p.start("local-default-15", 1, "tok"));
  ASSERT_FALSE(p.start("local-default-15-1", 1, "tok"));
  auto first = pid_of(p, "local-default-15");
  auto second = pid_of(p, "local-default-15-1");
  // The master died after starting the second agent, before its pid file.
  fs::remove(fs::path{p.cluster_dir()} / "local-default-15-1" / "pid");
  local_provider next{options("c-1", "owner-a")};
  EXPECT_EQ(next.alive(),
            (std::set<std::string>{"local-default-15", "local-default-15-1"}));
  // Each id is its own process (one id is not a prefix match of another).
  std::ifstream in{fs::path{p.cluster_dir()} / "local-default-15-1" / "pid"};
  long pid = 0;
  in >> pid;
  EXPECT_EQ(pid, second);
  EXPECT_NE(pid, first);
  // Its launch is known: the token was written before the process started.
  bool listed = false;
  next.list([&](caf::expected<provider_inventory> inv) {
    ASSERT_TRUE(inv);
    for (const auto& x : inv->instances)
      EXPECT_EQ(x.launch_token, "tok") << x.id;
    listed = inv->instances.size() == 2;
  });
  EXPECT_TRUE(listed);
}

TEST_F(
    local_provider_test,
    two_clusters_with_one_cluster_id_on_one_base_never_touch_each_others_agents) {
  // Same cluster id, same pool, same instance ids: only the owner differs
  // (two databases).
  local_provider a{options("determined", "owner-a")};
  ASSERT_FALSE(a.start("local-default-1", 1, "tok"));
  auto a_pid = pid_of(a, "local-default-1");
  local_provider b{options("determined", "owner-b")};
  EXPECT_NE(b.cluster_dir(), a.cluster_dir());
  EXPECT_EQ(b.cluster_dir(), (base / "agents" / "determined.2").string());
  EXPECT_TRUE(b.alive().empty()) << "b adopted a's agent";
  ASSERT_FALSE(b.start("local-default-1", 1, "tok"));
  auto b_pid = pid_of(b, "local-default-1");
  // b scales down: its own agent ends, a's runs on.
  bool terminated = false;
  b.terminate({"local-default-1"}, [&](caf::error err) {
    EXPECT_FALSE(err);
    terminated = true;
  });
  EXPECT_TRUE(terminated);
  EXPECT_TRUE(ends(b_pid));
  EXPECT_TRUE(b.alive().empty());
  EXPECT_EQ(kill(a_pid, 0), 0) << "a's agent was stopped";
  EXPECT_EQ(a.alive(), std::set<std::string>{"local-default-1"});
  // Each cluster's next master finds its own folder again.
  local_provider b2{options("determined", "owner-b")};
  EXPECT_EQ(b2.cluster_dir(), b.cluster_dir());
  local_provider a2{options("determined", "owner-a")};
  EXPECT_EQ(a2.alive(), std::set<std::string>{"local-default-1"});
}

TEST_F(local_provider_test,
       a_folder_that_is_a_symlink_or_open_to_others_is_not_taken) {
  fs::create_directories(base / "agents" / "elsewhere");
  std::ofstream{base / "agents" / "elsewhere" / "owner"} << "owner-a\n";
  fs::create_directory_symlink(base / "agents" / "elsewhere",
                               base / "agents" / "c-1");
  fs::create_directories(base / "agents" / "c-1.2");
  fs::permissions(base / "agents" / "c-1.2", fs::perms::all);
  std::ofstream{base / "agents" / "c-1.2" / "owner"} << "owner-a\n";
  local_provider p{options("c-1", "owner-a")};
  EXPECT_EQ(p.cluster_dir(), (base / "agents" / "c-1.3").string());
}

} // namespace
} // namespace det::provision
