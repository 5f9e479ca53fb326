// trial_supervisor: a trial never outlives its agent. A forked stand-in
// for det-agent starts a supervised trial and is SIGKILLed; the trial's
// whole process group must be gone within a bounded time. Waits poll with
// deadlines; nothing sleeps to let things happen.

#include "agent/trial_supervisor.hpp"
#include "tests/support/proc_state.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using namespace std::chrono_literals;

namespace {

/// Running and not a zombie (a re-parented trial may wait to be reaped).
bool running(pid_t pid) {
  return kill(pid, 0) == 0 && !det::test::dead_or_zombie(pid);
}

template <class Pred>
bool eventually(Pred p, std::chrono::milliseconds within) {
  auto deadline = std::chrono::steady_clock::now() + within;
  while (!p()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(20ms); // polling interval of a bounded wait
  }
  return true;
}

/// Forks a stand-in agent that runs `command` under supervise_trial (in
/// its own process group, as trial_process does) and then waits forever.
pid_t start_fake_agent(const std::string& command) {
  pid_t agent = fork();
  if (agent != 0)
    return agent;
  pid_t me = getpid();
  pid_t leader = fork();
  if (leader == 0) {
    setpgid(0, 0);
    std::string sh = "/bin/sh", c = "-c", cmd = command;
    char* argv[] = {sh.data(), c.data(), cmd.data(), nullptr};
    det::agent::supervise_trial(me, argv, environ, 50ms);
  }
  for (;;)
    pause();
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in{p};
  return {std::istreambuf_iterator<char>{in}, {}};
}

} // namespace

TEST(trial_supervisor, a_sigkilled_agent_takes_its_trial_group_with_it) {
  auto dir = std::filesystem::temp_directory_path()
             / ("det-supervisor-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto pid_file = dir / "trial.pid";
  // The trial and a background grandchild, both in the group.
  pid_t agent = start_fake_agent("sleep 60 & echo $! > " + pid_file.string()
                                 + ".bg; echo $$ > " + pid_file.string()
                                 + ".tmp; mv " + pid_file.string() + ".tmp "
                                 + pid_file.string() + "; exec sleep 60");
  ASSERT_GT(agent, 0);
  ASSERT_TRUE(
      eventually([&] { return std::filesystem::exists(pid_file); }, 10s));
  pid_t trial = std::stoi(read_file(pid_file));
  pid_t background = std::stoi(read_file(pid_file.string() + ".bg"));
  ASSERT_TRUE(running(trial));
  ASSERT_TRUE(running(background));
  pid_t group = getpgid(trial);
  ASSERT_NE(group, getpgrp());

  ASSERT_EQ(kill(agent, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(agent, &status, 0), agent);
  // 50 ms parent check: well within 5 s.
  EXPECT_TRUE(
      eventually([&] { return !running(trial) && !running(background); }, 5s));
  EXPECT_TRUE(eventually([&] { return !running(group); }, 5s));
  std::filesystem::remove_all(dir);
}

TEST(trial_supervisor, the_trial_exit_status_passes_through) {
  for (auto [command, expected] :
       {std::pair<std::string, int>{"exit 3", 3},
        std::pair<std::string, int>{"kill -USR1 $$", 128 + SIGUSR1}}) {
    pid_t leader = fork();
    if (leader == 0) {
      setpgid(0, 0);
      std::string sh = "/bin/sh", c = "-c", cmd = command;
      char* argv[] = {sh.data(), c.data(), cmd.data(), nullptr};
      det::agent::supervise_trial(getppid(), argv, environ, 50ms);
    }
    int status = 0;
    ASSERT_EQ(waitpid(leader, &status, 0), leader);
    ASSERT_TRUE(WIFEXITED(status)) << command;
    EXPECT_EQ(WEXITSTATUS(status), expected) << command;
  }
}

TEST(trial_supervisor, polite_signals_reach_the_trial_not_the_supervisor) {
  auto ready = std::filesystem::temp_directory_path()
               / ("det-supervisor-ready-" + std::to_string(getpid()));
  std::filesystem::remove(ready);
  pid_t leader = fork();
  if (leader == 0) {
    setpgid(0, 0);
    std::string sh = "/bin/sh", c = "-c",
                cmd = "touch " + ready.string() + "; exec sleep 60";
    char* argv[] = {sh.data(), c.data(), cmd.data(), nullptr};
    det::agent::supervise_trial(getppid(), argv, environ, 50ms);
  }
  // The trial exists (so the supervisor ignores SIGTERM by now).
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(ready); }, 10s));
  ASSERT_EQ(kill(-leader, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(leader, &status, 0), leader);
  ASSERT_TRUE(WIFEXITED(status)) << "the supervisor itself was signalled";
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  std::filesystem::remove(ready);
}
