// trial_process: real /bin/sh children. Every wait is bounded and awaits
// an event (exit, a line of output); nothing sleeps to let things happen.

#include "agent/trial_process.hpp"
#include "messages/errc.hpp"
#include "tests/agent/process_recorder.hpp"
#include "tests/support/proc_state.hpp"

#include <gtest/gtest.h>

#include <thread>

#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <unistd.h>

using namespace det::agent;
using det::test::gone_soon;
using det::test::recorder;
using det::test::start;
using namespace std::chrono_literals;

namespace {

bool alive(pid_t pid) {
  return ::kill(pid, 0) == 0;
}

using det::test::dead_or_zombie;

} // namespace

TEST(trial_process, output_of_stdout_and_stderr_arrives_as_lines) {
  recorder r;
  auto p = start("echo one; echo two >&2; printf 'no newline'", r);
  ASSERT_TRUE(p->wait_for(10s));
  EXPECT_EQ(r.lines, (std::vector<std::string>{"one", "two", "no newline"}));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.exits, 1);
}

TEST(trial_process, exit_code_is_reported) {
  recorder r;
  auto p = start("exit 3", r);
  ASSERT_TRUE(p->wait_for(10s));
  EXPECT_EQ(p->exit_code(), 3);
  EXPECT_EQ(r.code, 3);
}

TEST(trial_process, death_by_signal_is_reported_as_128_plus_the_signal) {
  recorder r;
  auto p = start("kill -9 $$", r);
  ASSERT_TRUE(p->wait_for(10s));
  EXPECT_EQ(r.code, 128 + 9);
}

TEST(trial_process, runs_in_the_work_dir_with_the_extra_environment) {
  auto dir = std::filesystem::temp_directory_path()
             / ("det-agent-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  recorder r;
  process_spec spec;
  spec.work_dir = dir.string();
  spec.env = {{"DET_TRIAL_ID", "42"}};
  auto p = start("pwd; echo trial=$DET_TRIAL_ID", r, {}, spec);
  ASSERT_TRUE(p->wait_for(10s));
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(std::filesystem::canonical(r.lines[0]),
            std::filesystem::canonical(dir));
  EXPECT_EQ(r.lines[1], "trial=42");
  std::filesystem::remove_all(dir);
}

TEST(trial_process, a_trial_never_sees_the_agents_token_or_credentials) {
  // What an agent on a cloud instance has in its environment.
  setenv("DET_AGENT_TOKEN", "agent-secret", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "aws-secret", 1);
  setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE", 1);
  setenv("PGPASSWORD", "db-secret", 1);
  setenv("DET_DB_PASSWORD", "db-secret", 1);
  setenv("LC_ALL", "C", 1);
  recorder r;
  process_spec spec;
  spec.env = {{"DET_TRIAL_ID", "7"}};
  auto p = start("env", r, {}, spec);
  ASSERT_TRUE(p->wait_for(10s));
  std::string all;
  for (const auto& l : r.lines)
    all += l + "\n";
  for (const char* secret : {"agent-secret", "aws-secret", "AKIAEXAMPLE",
                             "db-secret", "DET_AGENT_TOKEN"})
    EXPECT_EQ(all.find(secret), std::string::npos) << secret << " in\n" << all;
  EXPECT_NE(all.find("PATH="), std::string::npos) << all;
  EXPECT_NE(all.find("LC_ALL=C"), std::string::npos) << all;
  EXPECT_NE(all.find("DET_TRIAL_ID=7"), std::string::npos) << all;
  for (const char* name :
       {"DET_AGENT_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID",
        "PGPASSWORD", "DET_DB_PASSWORD"})
    unsetenv(name);
}

TEST(trial_process, many_lines_arrive_in_batches_of_at_most_batch_lines) {
  recorder r;
  process_options opts;
  opts.batch_lines = 10;
  auto p =
      start("i=0; while [ $i -lt 95 ]; do echo $i; i=$((i+1)); done", r, opts);
  ASSERT_TRUE(p->wait_for(10s));
  ASSERT_EQ(r.lines.size(), 95u);
  EXPECT_EQ(r.lines.front(), "0");
  EXPECT_EQ(r.lines.back(), "94");
  for (auto n : r.batch_sizes)
    EXPECT_LE(n, 10u);
}

TEST(trial_process, output_is_delivered_while_the_process_still_runs) {
  recorder r;
  auto p = start("echo started; exec sleep 60", r);
  EXPECT_TRUE(r.wait_line("started"));
  EXPECT_FALSE(p->exit_code());
  p->kill();
  ASSERT_TRUE(p->wait_for(10s));
}

TEST(trial_process, kill_terminates_the_whole_process_group) {
  recorder r;
  // A background grandchild that reports its pid, and a foreground one.
  auto p = start("sleep 60 & echo child=$!; sleep 60", r);
  {
    std::unique_lock<std::mutex> l{r.mu};
    ASSERT_TRUE(r.cv.wait_for(l, 10s, [&] { return !r.lines.empty(); }));
  }
  auto child = static_cast<pid_t>(std::stol(r.lines[0].substr(6)));
  ASSERT_TRUE(alive(child));
  p->kill();
  ASSERT_TRUE(p->wait_for(10s));
  EXPECT_EQ(r.code, 128 + SIGTERM);
  EXPECT_TRUE(gone_soon(child));
}

TEST(trial_process, kill_escalates_to_sigkill_after_the_grace_period) {
  recorder r;
  process_options opts;
  opts.kill_grace = 200ms;
  auto p =
      start("trap '' TERM; echo ready; while :; do sleep 1; done", r, opts);
  ASSERT_TRUE(r.wait_line("ready"));
  p->kill();
  ASSERT_TRUE(p->wait_for(10s));
  EXPECT_EQ(r.code, 128 + SIGKILL);
}

TEST(trial_process, a_kill_right_after_the_start_ends_the_trial) {
  // The SIGTERM comes before or while the supervisor forks the trial; it
  // must reach the trial, not wait for the SIGKILL after the grace period.
  process_options opts;
  opts.kill_grace = 60s;
  for (int i = 0; i < 20; ++i) {
    recorder r;
    auto p = start("sleep 30", r, opts);
    p->kill();
    ASSERT_TRUE(p->wait_for(10s)) << "round " << i;
    EXPECT_EQ(r.code, 128 + SIGTERM) << "round " << i;
  }
}

TEST(trial_process, command_that_does_not_exist_exits_127) {
  recorder r;
  auto p = start("/nonexistent/program", r);
  ASSERT_TRUE(p->wait_for(10s));
  EXPECT_EQ(r.code, 127);
}

TEST(trial_process, what_the_entrypoint_leaves_may_write_for_log_wait) {
  recorder r;
  process_options opts;
  opts.log_wait = 30s;
  auto p = start("(sleep 0.3; echo late) & echo main", r, opts);
  ASSERT_TRUE(p->wait_for(10s));
  // Kept, and before the exit: its pipe closed long before log_wait.
  EXPECT_EQ(r.lines, (std::vector<std::string>{"main", "late"}));
  EXPECT_EQ(r.code, 0);
}

TEST(trial_process, what_writes_past_log_wait_is_killed_unheard) {
  recorder r;
  process_options opts;
  opts.log_wait = 200ms;
  auto p = start("(sleep 30; echo too-late) & echo child=$!", r, opts);
  ASSERT_TRUE(p->wait_for(10s));
  ASSERT_EQ(r.lines.size(), 1u);
  auto child = static_cast<pid_t>(std::stol(r.lines[0].substr(6)));
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(gone_soon(child));
}

TEST(trial_process, a_daemon_holding_the_pipe_does_not_hold_the_exit) {
  // A process the trial moved out of its group (a session of its own, as
  // a daemon does) keeps writing to the pipe; the group's kill misses it.
  // It ends by itself within 10 s; the trial exits once it has started.
  auto pid_file = std::filesystem::temp_directory_path()
                  / ("daemon_" + std::to_string(::getpid()));
  std::filesystem::remove(pid_file);
  recorder r;
  process_options opts;
  opts.orphan_output_wait = 300ms;
  auto p = start("setsid sh -c 'echo $$ > " + pid_file.string()
                     + "; for i in $(seq 200); do echo tick; sleep 0.05; "
                       "done' & while [ ! -s "
                     + pid_file.string() + " ]; do sleep 0.01; done; exit 3",
                 r, opts);
  bool exited = p->wait_for(8s);
  pid_t daemon = 0;
  std::ifstream{pid_file} >> daemon;
  if (daemon > 0)
    ::kill(daemon, SIGKILL);
  std::filesystem::remove(pid_file);
  ASSERT_TRUE(exited) << "the exit waited for the daemon's pipe";
  EXPECT_EQ(r.code, 3);
  EXPECT_GT(daemon, 0);
}

TEST(trial_process, log_wait_is_det_log_wait_time_else_30_seconds) {
  EXPECT_EQ(log_wait_of({{"DET_LOG_WAIT_TIME", "10"}}), 10s);
  EXPECT_EQ(log_wait_of({{"DET_LOG_WAIT_TIME", "0"}}), 0s);
  EXPECT_EQ(log_wait_of({}), 30s);
  for (const char* bad : {"-1", "ten", "10s", "", "99999"})
    EXPECT_EQ(log_wait_of({{"DET_LOG_WAIT_TIME", bad}}), 30s) << bad;
}
