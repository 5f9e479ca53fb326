// The warm launcher (agent/warm_launch.hpp) with real processes: a Python
// server over a stand-in determined package, and trials started through
// det-agent's `--warm-launch` client exactly as the agent starts them.
// Waits are bounded and await an event (a line, an exit).

#include "agent/harness_files.hpp"
#include "agent/warm_launch.hpp"
#include "tests/agent/fake_harness.hpp"
#include "tests/agent/process_recorder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace det::agent;
using det::test::gone_soon;
using det::test::line_after;
using det::test::recorder;
using det::test::write_fake_harness;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

/// A trial's own script: who ran it, its argv and sys.path, whether it
/// imported the harness afresh and sees SIGPIPE as the interpreter leaves
/// it, then an atexit hook and a thread the interpreter's end waits for.
void write_script(const fs::path& work) {
  std::ofstream{work / "train.py"}
      << "import atexit, os, signal, sys, threading, time\n"
         "import determined, socket\n"
         "print('script_pid=%d' % os.getpid())\n"
         "print('script_ppid=%d' % os.getppid())\n"
         "print('script_pgrp=%d' % os.getpgrp())\n"
         "print('argv=' + ' '.join(sys.argv))\n"
         "print('path0=' + sys.path[0])\n"
         "print('script_fresh=%s' % (determined.IMPORTED_IN == os.getpid()))\n"
         "print('sigpipe_ignored=%s' % "
         "(signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN))\n"
         "print('shadow_here=%s' % hasattr(socket, 'HERE'))\n"
         "atexit.register(lambda: print('atexit ran', flush=True))\n"
         "def late():\n"
         "    time.sleep(0.2)\n"
         "    print('thread done', flush=True)\n"
         "threading.Thread(target=late).start()\n"
         "sys.stdout.flush()\n"
         "if os.environ.get('SCRIPT_SLEEP'):\n"
         "    time.sleep(60)\n"
         "sys.exit(int(os.environ.get('SCRIPT_CODE', '0')))\n";
}

struct bed {
  fs::path dir;
  fs::path fake;
  std::unique_ptr<warm_launcher> launcher;

  explicit bed(const std::string& name, bool broken = false) {
    dir = fs::temp_directory_path()
          / ("warm_launch_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fake = dir / "fake";
    write_fake_harness(fake, broken);
    fs::create_directories(dir / "work");
    write_script(dir / "work");
    // The agent's own secret: the server and the trials must never see it.
    ::setenv("DET_AGENT_TOKEN", "agent-secret", 1);
    auto env = trial_base_environment();
    env["PYTHONPATH"] = fake.string();
    launcher = warm_launcher::start(env);
  }
  ~bed() {
    launcher.reset();
    ::unsetenv("DET_AGENT_TOKEN");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  /// A trial's spec as the agent makes it: harness files, its environment
  /// (`extra` added), the command through the warm launcher.
  process_spec trial(const std::map<std::string, std::string>& extra,
                     const std::string& socket) {
    process_spec spec;
    spec.work_dir = (dir / "work").string();
    spec.env = {{"DET_EXPERIMENT_CONFIG", R"({"entrypoint": "exit 9"})"}};
    for (const auto& [k, v] : extra)
      spec.env[k] = v;
    EXPECT_FALSE(
        write_harness_files((dir / "run").string(), spec.env, fake.string()));
    trial_command("exit 9", spec.env); // DET_ENTRYPOINT, as the agent sets it
    spec.command = warm_trial_command(DET_AGENT_BINARY, socket);
    return spec;
  }
};

/// Runs `spec` to its exit; the exit code (nothing after 30 s).
std::optional<int> run(recorder& r, const process_spec& spec) {
  auto p = trial_process::start(spec, r.callbacks(), {});
  EXPECT_TRUE(p);
  if (!p || !(*p)->wait_for(30s))
    return std::nullopt;
  return (*p)->exit_code();
}

} // namespace

TEST(warm_launch, a_trial_is_forked_by_the_launcher_under_its_own_environment) {
  bed b{"forked"};
  ASSERT_TRUE(b.launcher);
  ASSERT_TRUE(b.launcher->wait_ready(30s));
  auto server = std::to_string(b.launcher->pid());
  for (const char* mark : {"first", "second"}) { // the server is reused
    recorder r;
    auto spec = b.trial({{"MARK", mark}, {"CODE", "42"}}, b.launcher->socket());
    auto p = trial_process::start(spec, r.callbacks(), {});
    ASSERT_TRUE(p);
    ASSERT_TRUE((*p)->wait_for(30s));
    EXPECT_EQ((*p)->exit_code(), 42) << mark;
    EXPECT_EQ(line_after(r, "ppid="), server) << "not forked by the launcher";
    EXPECT_EQ(line_after(r, "pgrp="), std::to_string((*p)->pid()))
        << "the launch layer is outside the trial's process group";
    EXPECT_EQ(line_after(r, "fresh="), "True")
        << "the harness was not imported again under the trial's environment";
    // Its definitions-only bindings are the server's, already loaded.
    EXPECT_EQ(line_after(r, "bindings_kept="), "True");
    EXPECT_EQ(
        line_after(r, "bindings_file="),
        (b.fake / "determined" / "common" / "api" / "bindings.py").string());
    EXPECT_EQ(line_after(r, "cwd="), spec.work_dir);
    EXPECT_EQ(line_after(r, "mark="), mark);
    EXPECT_EQ(line_after(r, "token="), "none");
    // The trial's PATH, with what the interpreter's wrapper (pyenv's shim)
    // put before it, as a cold start has it.
    std::string path = std::getenv("PATH");
    auto got = line_after(r, "path=");
    EXPECT_TRUE(got.size() >= path.size()
                && got.compare(got.size() - path.size(), path.size(), path)
                       == 0)
        << got;
  }
}

TEST(warm_launch, a_trial_with_its_own_harness_imports_all_of_it) {
  bed b{"ownharness"};
  ASSERT_TRUE(b.launcher);
  ASSERT_TRUE(b.launcher->wait_ready(30s));
  // Another copy of the harness ahead on the trial's PYTHONPATH: the trial
  // imports that one, bindings included, as a cold start would.
  auto other = b.dir / "other";
  write_fake_harness(other);
  recorder r;
  auto spec = b.trial({{"CODE", "8"}}, b.launcher->socket());
  spec.env["PYTHONPATH"] =
      (b.dir / "run" / "python").string() + ":" + other.string();
  EXPECT_EQ(run(r, spec), 8);
  EXPECT_EQ(line_after(r, "ppid="), std::to_string(b.launcher->pid()))
      << "not forked by the launcher";
  EXPECT_EQ(line_after(r, "bindings_kept="), "False");
  EXPECT_EQ(line_after(r, "bindings_file="),
            (other / "determined" / "common" / "api" / "bindings.py").string());
}

TEST(warm_launch,
     a_harness_file_changed_since_the_launcher_started_is_read_again) {
  bed b{"edited"};
  ASSERT_TRUE(b.launcher);
  ASSERT_TRUE(b.launcher->wait_ready(30s));
  {
    recorder r; // the launcher's kept code
    EXPECT_EQ(run(r, b.trial({{"CODE", "3"}}, b.launcher->socket())), 3);
    EXPECT_EQ(line_after(r, "edited="), "");
  }
  // The launch layer edited (another size) after the launcher imported it.
  auto file = b.fake / "determined" / "exec" / "launch.py";
  std::ifstream in{file};
  std::string text{std::istreambuf_iterator<char>(in), {}};
  in.close();
  std::ofstream{file} << "print('edited=True', flush=True)\n" << text;
  recorder r;
  EXPECT_EQ(run(r, b.trial({{"CODE", "3"}}, b.launcher->socket())), 3);
  EXPECT_EQ(line_after(r, "ppid="), std::to_string(b.launcher->pid()));
  EXPECT_EQ(line_after(r, "edited="), "True")
      << "the trial ran the launcher's copy of an edited file";
}

TEST(warm_launch, other_interpreter_settings_or_no_launcher_start_cold) {
  bed b{"cold"};
  ASSERT_TRUE(b.launcher);
  ASSERT_TRUE(b.launcher->wait_ready(30s));
  auto server = std::to_string(b.launcher->pid());
  {
    // PYTHONHASHSEED changes the interpreter: the server refuses.
    recorder r;
    auto code = run(r, b.trial({{"CODE", "5"}, {"PYTHONHASHSEED", "1"}},
                               b.launcher->socket()));
    EXPECT_EQ(code, 5);
    EXPECT_NE(line_after(r, "ppid="), server);
    EXPECT_EQ(line_after(r, "fresh="), "True");
  }
  {
    // No server at that socket: the client runs the cold command.
    recorder r;
    auto code =
        run(r, b.trial({{"CODE", "6"}}, (b.dir / "nobody.sock").string()));
    EXPECT_EQ(code, 6);
    EXPECT_NE(line_after(r, "ppid="), server);
  }
}

TEST(warm_launch, a_killed_trial_takes_its_forked_launch_layer_with_it) {
  bed b{"kill"};
  ASSERT_TRUE(b.launcher);
  ASSERT_TRUE(b.launcher->wait_ready(30s));
  recorder r;
  auto spec = b.trial({{"SLEEP", "1"}}, b.launcher->socket());
  auto p = trial_process::start(spec, r.callbacks(), {});
  ASSERT_TRUE(p);
  ASSERT_TRUE(r.wait_line("token=none"));
  auto child = static_cast<pid_t>(std::stol(line_after(r, "pid=")));
  EXPECT_EQ(line_after(r, "ppid="), std::to_string(b.launcher->pid()));
  (*p)->kill();
  ASSERT_TRUE((*p)->wait_for(30s));
  EXPECT_EQ((*p)->exit_code(), 128 + SIGTERM);
  EXPECT_TRUE(gone_soon(child));
  EXPECT_TRUE(b.launcher->alive()) << "one trial's kill took the launcher";
}

TEST(warm_launch, a_launcher_whose_harness_does_not_import_is_never_ready) {
  bed b{"broken", true};
  ASSERT_TRUE(b.launcher);
  EXPECT_FALSE(b.launcher->wait_ready(30s));
  // It exited on its own; reaped within the bound.
  bool gone = false;
  for (int i = 0; i < 300 && !gone; ++i) {
    gone = !b.launcher->alive();
    if (!gone)
      std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(gone);
}

namespace {

/// The pid of a Python process whose command line holds `text`, or 0 (a
/// wrapper script on the way to it, such as pyenv's shim and its
/// subshells, is not it).
pid_t process_with(const std::string& text) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    auto name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    std::string cmd;
    try {
      std::ifstream in{e.path() / "cmdline", std::ios::binary};
      cmd.assign(std::istreambuf_iterator<char>(in), {});
    } catch (const std::ios_base::failure&) {
      continue; // it ended while read (libstdc++ throws ESRCH from a read)
    }
    std::error_code ec;
    auto exe = fs::read_symlink(e.path() / "exe", ec).filename().string();
    if (cmd.find(text) != std::string::npos && exe.rfind("python", 0) == 0)
      return static_cast<pid_t>(std::stol(name));
  }
  return 0;
}

} // namespace

TEST(warm_launch, the_launcher_goes_with_an_agent_killed_by_sigkill) {
  bed b{"agent"};
  auto tmp = b.dir / "tmp";
  fs::create_directories(tmp);
  // det-agent itself, with nothing to connect to: it starts its launcher
  // at once and keeps retrying the master.
  pid_t agent = ::fork();
  ASSERT_GE(agent, 0);
  if (agent == 0) {
    ::setenv("TMPDIR", tmp.c_str(), 1);
    ::setenv("PYTHONPATH", b.fake.c_str(), 1);
    ::execl(DET_AGENT_BINARY, DET_AGENT_BINARY, "--master-url",
            "http://127.0.0.1:1", "--work-dir", (b.dir / "work").c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Whatever an assertion ends, the agent does not outlive the test.
  std::shared_ptr<void> reap_agent{nullptr, [agent](void*) {
                                     ::kill(agent, SIGKILL);
                                     int st = 0;
                                     ::waitpid(agent, &st, 0);
                                   }};
  pid_t launcher = 0;
  for (int i = 0; i < 1000 && launcher == 0; ++i) { // at most 10 s
    launcher = process_with(tmp.string() + "/det-warm-");
    if (launcher == 0)
      std::this_thread::sleep_for(10ms);
  }
  ASSERT_NE(launcher, 0) << "det-agent started no warm launcher";
  // Listening (its socket made) and waiting in select(): past the start,
  // where an agent's death would also end it (its "ready" line would
  // meet a closed pipe).
  bool listening = false;
  for (int i = 0; i < 1000 && !listening; ++i) {
    for (const auto& e : fs::directory_iterator(tmp))
      listening = listening || fs::exists(e.path() / "launch.sock");
    listening = listening && det::test::proc_state(launcher) == 'S';
    if (!listening)
      std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(listening);
  // The live agent holds its folder: a sweep leaves it, however old.
  EXPECT_EQ(remove_stale_launcher_dirs(tmp.string(), 0s), 0);
  reap_agent.reset();
  if (!gone_soon(launcher)) {
    ::kill(launcher, SIGKILL); // it holds this test's output open
    ADD_FAILURE() << "the launcher outlived its agent";
  }
  // Killed, the agent could not remove its folder; the next launcher's
  // sweep does.
  ASSERT_FALSE(fs::is_empty(tmp));
  EXPECT_EQ(remove_stale_launcher_dirs(tmp.string(), 0s), 1);
  EXPECT_TRUE(fs::is_empty(tmp));
}

TEST(warm_launch,
     a_sweep_removes_only_unheld_old_launcher_folders_of_its_user) {
  auto tmp = fs::temp_directory_path()
             / ("warm_launch_sweep_" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  std::shared_ptr<void> clean{nullptr, [tmp](void*) {
                                std::error_code ec;
                                fs::remove_all(tmp, ec);
                              }};
  auto old = fs::file_time_type::clock::now() - 10min;
  auto make = [&](const std::string& name, bool aged) {
    fs::create_directories(tmp / name);
    std::ofstream{tmp / name / "warm_launch.py"} << "# left behind\n";
    if (aged)
      fs::last_write_time(tmp / name, old);
  };
  make("det-warm-stale1", true);
  make("det-warm-held01", true);
  make("det-warm-fresh1", false);
  make("other-dir-old", true);
  make("target", true);
  fs::create_directory_symlink(tmp / "target", tmp / "det-warm-link01");
  // An agent alive elsewhere: its folder locked.
  int held = ::open((tmp / "det-warm-held01").c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  EXPECT_EQ(remove_stale_launcher_dirs(tmp.string(), 1min), 1);
  ::close(held);
  EXPECT_FALSE(fs::exists(tmp / "det-warm-stale1"));
  EXPECT_TRUE(fs::exists(tmp / "det-warm-held01" / "warm_launch.py"));
  EXPECT_TRUE(fs::exists(tmp / "det-warm-fresh1" / "warm_launch.py"));
  EXPECT_TRUE(fs::exists(tmp / "other-dir-old" / "warm_launch.py"));
  EXPECT_TRUE(fs::is_symlink(tmp / "det-warm-link01"));
  EXPECT_TRUE(fs::exists(tmp / "target" / "warm_launch.py"));
  // A launcher's own folder is held from its start.
  ::setenv("TMPDIR", tmp.c_str(), 1);
  auto launcher = warm_launcher::start({{"PATH", "/usr/bin:/bin"}});
  ::unsetenv("TMPDIR");
  ASSERT_TRUE(launcher);
  auto launcher_dir = fs::path{launcher->socket()}.parent_path();
  // The held folder is free now and old: that start swept it.
  EXPECT_FALSE(fs::exists(tmp / "det-warm-held01"));
  // With no minimum age, an unheld folder goes, however new; the
  // launcher's own stays.
  EXPECT_EQ(remove_stale_launcher_dirs(tmp.string(), 0s), 1);
  EXPECT_FALSE(fs::exists(tmp / "det-warm-fresh1"));
  EXPECT_TRUE(fs::exists(launcher_dir));
  launcher.reset();
  EXPECT_FALSE(fs::exists(launcher_dir));
}

TEST(warm_launch, a_plain_python3_entrypoint_is_forked_as_a_cold_start_runs) {
  bed b{"script"};
  ASSERT_TRUE(b.launcher);
  ASSERT_TRUE(b.launcher->wait_ready(30s));
  recorder r;
  auto spec = b.trial({{"ENTRY", "python3 train.py a b"}, {"SCRIPT_CODE", "7"}},
                      b.launcher->socket());
  auto p = trial_process::start(spec, r.callbacks(), {});
  ASSERT_TRUE(p);
  ASSERT_TRUE((*p)->wait_for(30s));
  EXPECT_EQ((*p)->exit_code(), 7);
  EXPECT_EQ(line_after(r, "script_ppid="), std::to_string(b.launcher->pid()))
      << "the script was not forked by the launcher";
  EXPECT_EQ(line_after(r, "script_pgrp="), std::to_string((*p)->pid()));
  EXPECT_EQ(line_after(r, "argv="), "train.py a b");
  EXPECT_EQ(line_after(r, "path0="), spec.work_dir);
  EXPECT_EQ(line_after(r, "script_fresh="), "True")
      << "a site package the launcher had loaded was not imported again";
  EXPECT_EQ(line_after(r, "sigpipe_ignored="), "True");
  // The interpreter's own end: the thread joined, then atexit.
  auto at = [&](const std::string& l) {
    return std::find(r.lines.begin(), r.lines.end(), l) - r.lines.begin();
  };
  ASSERT_TRUE(r.wait_line("atexit ran"));
  ASSERT_TRUE(r.wait_line("thread done"));
  EXPECT_LT(at("thread done"), at("atexit ran"));
}

TEST(warm_launch, a_script_that_would_import_other_files_starts_cold) {
  bed b{"shadow"};
  ASSERT_TRUE(b.launcher);
  ASSERT_TRUE(b.launcher->wait_ready(30s));
  auto server = std::to_string(b.launcher->pid());
  {
    // Its folder holds a module the launcher has loaded: a cold start
    // imports that file instead, so it runs cold.
    std::ofstream{b.dir / "work" / "socket.py"} << "HERE = True\n";
    recorder r;
    auto code =
        run(r, b.trial({{"ENTRY", "python3 train.py"}, {"SCRIPT_CODE", "4"}},
                       b.launcher->socket()));
    EXPECT_EQ(code, 4);
    EXPECT_NE(line_after(r, "script_ppid="), server);
    EXPECT_EQ(line_after(r, "shadow_here="), "True");
    fs::remove(b.dir / "work" / "socket.py");
  }
  {
    // More than `python3 SCRIPT ARG...`: the shell runs it, as before.
    recorder r;
    auto code =
        run(r, b.trial({{"ENTRY", "python3 -u train.py"}, {"SCRIPT_CODE", "3"}},
                       b.launcher->socket()));
    EXPECT_EQ(code, 3);
    EXPECT_NE(line_after(r, "script_ppid="), server);
    EXPECT_NE(line_after(r, "script_ppid="), "");
  }
}

TEST(warm_launch, the_launch_layer_forwards_a_signal_to_its_forked_script) {
  bed b{"forward"};
  ASSERT_TRUE(b.launcher);
  ASSERT_TRUE(b.launcher->wait_ready(30s));
  recorder r;
  auto spec = b.trial({{"ENTRY", "python3 train.py"}, {"SCRIPT_SLEEP", "1"}},
                      b.launcher->socket());
  auto p = trial_process::start(spec, r.callbacks(), {});
  ASSERT_TRUE(p);
  ASSERT_TRUE(r.wait_line("shadow_here=False"));
  auto launch = static_cast<pid_t>(std::stol(line_after(r, "pid=")));
  auto script = static_cast<pid_t>(std::stol(line_after(r, "script_pid=")));
  // The signal to the launch layer alone, which passes it on: the script
  // ends by it, and the launch layer exits as after Popen's -15.
  ASSERT_EQ(::kill(launch, SIGTERM), 0);
  ASSERT_TRUE((*p)->wait_for(30s));
  EXPECT_TRUE(gone_soon(script));
  EXPECT_EQ((*p)->exit_code(), 256 - SIGTERM) << "sys.exit(-15)";
}

TEST(warm_launch, a_client_gone_half_way_leaves_no_pipe_of_its_trial_open) {
  bed b{"halfway"};
  ASSERT_TRUE(b.launcher);
  ASSERT_TRUE(b.launcher->wait_ready(30s));
  // A client killed after handing over its fds, before the request's
  // body (a trial killed as it starts): the launcher must not keep the
  // trial's output pipe open, or the agent never sees the trial end.
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  int sock = wire::connect_to(b.launcher->socket());
  ASSERT_GE(sock, 0);
  // A body of 100 bytes, never sent.
  ASSERT_TRUE(wire::send_header(sock, 100, {out[1], out[1], out[1]}));
  ::close(sock);
  ::close(out[1]);
  pollfd p{out[0], POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 10000), 1) << "the launcher kept the pipe open";
  char byte = 0;
  EXPECT_EQ(::read(out[0], &byte, 1), 0);
  ::close(out[0]);
  EXPECT_TRUE(b.launcher->alive());
}

TEST(warm_launch, a_trial_killed_as_it_starts_ends_at_once) {
  bed b{"startkill"};
  ASSERT_TRUE(b.launcher);
  ASSERT_TRUE(b.launcher->wait_ready(30s));
  // The kill's SIGTERM lands anywhere in the start: before the request,
  // while the launcher forks, before the child is in the trial's group.
  // Wherever it lands, the trial ends by it, not by the SIGKILL a long
  // grace period later.
  process_options opts;
  opts.kill_grace = 60s;
  for (int i = 0; i < 24; ++i) {
    recorder r;
    auto spec = b.trial({{"SLEEP", "1"}}, b.launcher->socket());
    auto p = trial_process::start(spec, r.callbacks(), opts);
    ASSERT_TRUE(p);
    std::this_thread::sleep_for(std::chrono::milliseconds(i * 2));
    (*p)->kill();
    ASSERT_TRUE((*p)->wait_for(10s)) << "round " << i;
    EXPECT_EQ((*p)->exit_code(), 128 + SIGTERM) << "round " << i;
  }
}
