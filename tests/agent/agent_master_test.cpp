// det-agent against a fake master on 127.0.0.1: hello/welcome, start
// (model_def download, running, log, exited), kill, and a reconnect that
// re-reports the running allocation. Waits await frames, bounded.

#include "agent/agent.hpp"
#include "fake_master.hpp"
#include "tests/agent/fake_harness.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include <unistd.h>

using namespace det::agent;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::map<std::string, std::string> model_files = {
    {"run.sh", "echo hello from trial $DET_TRIAL_ID\n"
               "echo lr=$(echo \"$DET_HPARAMS\" | tr -d ' ')\n"
               "echo ckpt=$DET_LATEST_CHECKPOINT\n"
               "exit 3\n"},
    {"wait.sh", "echo started\nexec sleep 60\n"},
};

json start_frame(const std::string& alloc, const std::string& entrypoint) {
  return {{"v", 1},
          {"type", "start"},
          {"allocation_id", alloc},
          {"trial_id", 7},
          {"experiment_id", 3},
          {"slots", {0}},
          {"hparams", {{"learning_rate", 0.5}}},
          {"target_length", 10},
          {"resume_from", {{"uuid", "ck-1"}, {"steps_completed", 5}}},
          {"entrypoint", entrypoint},
          {"env", {{"DET_SESSION_TOKEN", "sess-tok"}}}};
}

class agent_with_fake_master : public ::testing::Test {
protected:
  void start_agent(const std::string& token = "",
                   const std::string& warm_launch_client = "") {
    agent_settings s;
    s.warm_launch_client = warm_launch_client;
    auto cfg = det::conf::parse_agent_config("");
    ASSERT_TRUE(cfg);
    s.cfg = *cfg;
    s.cfg.master.host = "127.0.0.1";
    s.cfg.master.port = master.port();
    s.cfg.resource_pool = "default";
    s.cfg.token = token;
    work_dir = std::filesystem::temp_directory_path()
               / ("det-agent-it-" + std::to_string(getpid()));
    s.cfg.work_dir = work_dir.string();
    s.agent_id = "agent-1";
    s.slots = 2;
    s.backoff.initial = 20ms;
    s.backoff.max_delay = 200ms;
    s.uniform = [] { return 0.0; };
    a = std::make_unique<agent>(std::move(s));
    runner = std::thread{[this] { a->run(); }};
  }

  /// Awaits the hello and answers it.
  json welcome() {
    auto hello = master.next("hello");
    EXPECT_TRUE(hello);
    master.send({{"v", 1},
                 {"type", "welcome"},
                 {"agent_id", "agent-1"},
                 {"heartbeat_interval_s", 10}});
    return hello ? *hello : json{};
  }

  /// Log lines of `alloc` until one equals `line` (bounded).
  bool await_log_line(const std::string& line) {
    for (int i = 0; i < 50; ++i) {
      auto f = master.next("log");
      if (!f)
        return false;
      for (auto& l : (*f)["lines"])
        seen_lines.push_back(l.get<std::string>());
      if (std::find(seen_lines.begin(), seen_lines.end(), line)
          != seen_lines.end())
        return true;
    }
    return false;
  }

  /// The rest of the first log line that starts with `prefix` ("" when
  /// none comes, bounded).
  std::string await_log_prefix(const std::string& prefix) {
    for (int i = 0; i < 50; ++i) {
      for (const auto& l : seen_lines)
        if (l.rfind(prefix, 0) == 0)
          return l.substr(prefix.size());
      auto f = master.next("log");
      if (!f)
        return "";
      for (auto& l : (*f)["lines"])
        seen_lines.push_back(l.get<std::string>());
    }
    return "";
  }

  void TearDown() override {
    if (a) {
      a->stop();
      runner.join();
      a.reset();
    }
    std::error_code ec;
    std::filesystem::remove_all(work_dir, ec);
  }

  det::agent::testing::fake_master master{model_files};
  std::unique_ptr<agent> a;
  std::thread runner;
  std::filesystem::path work_dir;
  std::vector<std::string> seen_lines;
};

} // namespace

TEST_F(agent_with_fake_master, agent_says_hello_with_its_slots) {
  start_agent();
  auto hello = welcome();
  EXPECT_EQ(hello["v"], 1);
  EXPECT_EQ(hello["agent_id"], "agent-1");
  EXPECT_EQ(hello["resource_pool"], "default");
  EXPECT_EQ(hello["slots"], 2);
  EXPECT_EQ(hello["slot_type"], "cpu");
  EXPECT_EQ(hello["running"], json::array());
}

TEST_F(agent_with_fake_master, started_trial_reports_running_logs_and_exit) {
  start_agent();
  welcome();
  ASSERT_TRUE(master.send(start_frame("3.7.1", "sh run.sh")));
  auto running = master.next("running");
  ASSERT_TRUE(running);
  EXPECT_EQ((*running)["allocation_id"], "3.7.1");
  ASSERT_TRUE(await_log_line("hello from trial 7"));
  auto exited = master.next("exited");
  ASSERT_TRUE(exited);
  EXPECT_EQ((*exited)["allocation_id"], "3.7.1");
  EXPECT_EQ((*exited)["exit_code"], 3);
  EXPECT_NE(std::find(seen_lines.begin(), seen_lines.end(),
                      R"(lr={"learning_rate":0.5})"),
            seen_lines.end());
  EXPECT_NE(std::find(seen_lines.begin(), seen_lines.end(), "ckpt=ck-1"),
            seen_lines.end());
  EXPECT_EQ(master.model_def_auth(),
            std::vector<std::string>{"Bearer sess-tok"});
}

TEST_F(agent_with_fake_master, kill_ends_the_trial_with_sigterm) {
  start_agent();
  welcome();
  ASSERT_TRUE(master.send(start_frame("3.7.2", "sh wait.sh")));
  ASSERT_TRUE(master.next("running"));
  ASSERT_TRUE(await_log_line("started"));
  master.send({{"v", 1}, {"type", "kill"}, {"allocation_id", "3.7.2"}});
  auto exited = master.next("exited");
  ASSERT_TRUE(exited);
  EXPECT_EQ((*exited)["exit_code"], 128 + 15);
}

TEST_F(agent_with_fake_master,
       a_trial_that_comes_while_the_warm_launcher_imports_waits_for_it) {
  // An agent just started (as one a provisioner launched for this trial):
  // its launcher takes 1.5 s to import the harness, and the trial comes at
  // once. It starts through the launcher, not cold.
  auto harness = std::filesystem::temp_directory_path()
                 / ("det-agent-harness-" + std::to_string(getpid()));
  det::test::write_fake_harness(harness, false, 1.5);
  const char* old = std::getenv("PYTHONPATH");
  std::string saved = old != nullptr ? old : "";
  ::setenv("PYTHONPATH", harness.c_str(), 1);
  std::shared_ptr<void> restore{nullptr, [&](void*) {
                                  if (old != nullptr)
                                    ::setenv("PYTHONPATH", saved.c_str(), 1);
                                  else
                                    ::unsetenv("PYTHONPATH");
                                  std::error_code ec;
                                  std::filesystem::remove_all(harness, ec);
                                }};
  start_agent("", DET_AGENT_BINARY);
  welcome();
  auto start = start_frame("3.7.9", "exit 9");
  start["env"]["DET_EXPERIMENT_CONFIG"] = R"({"entrypoint": "exit 9"})";
  start["env"]["CODE"] = "4";
  ASSERT_TRUE(master.send(start));
  EXPECT_EQ(await_log_prefix("by_launcher="), "True")
      << "the trial started cold";
  EXPECT_EQ(await_log_prefix("bindings_kept="), "True");
  auto exited = master.next("exited");
  ASSERT_TRUE(exited);
  EXPECT_EQ((*exited)["exit_code"], 4);
}

TEST_F(agent_with_fake_master, agent_reconnects_and_reports_running_trials) {
  start_agent();
  welcome();
  ASSERT_TRUE(master.send(start_frame("3.7.3", "sh wait.sh")));
  ASSERT_TRUE(master.next("running"));
  master.drop();
  auto hello = welcome();
  EXPECT_EQ(master.connections(), 2);
  EXPECT_EQ(hello["running"], json::array({"3.7.3"}));
  master.send({{"v", 1}, {"type", "kill"}, {"allocation_id", "3.7.3"}});
  auto exited = master.next("exited");
  ASSERT_TRUE(exited);
  EXPECT_EQ((*exited)["allocation_id"], "3.7.3");
}

TEST_F(
    agent_with_fake_master,
    an_exit_is_kept_until_the_master_acknowledges_it_and_sent_again_after_each_reconnect) {
  start_agent();
  welcome();
  ASSERT_TRUE(master.send(start_frame("3.7.4", "sh run.sh")));
  auto first = master.next("exited");
  ASSERT_TRUE(first);
  EXPECT_EQ((*first)["exit_code"], 3);
  auto at = (*first).value("exited_at_us", int64_t{0});
  EXPECT_GT(at, 0);
  // Sent, not acknowledged (the master died before recording it): kept.
  auto kept = a->unacknowledged_exits();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].allocation_id, "3.7.4");
  EXPECT_EQ(kept[0].exit_code, 3);
  for (int round = 0; round < 2; ++round) {
    master.drop();
    auto hello = welcome();
    EXPECT_EQ(hello["running"], json::array({"3.7.4"}));
    EXPECT_EQ(hello["exited"], json::array({{{"allocation_id", "3.7.4"},
                                             {"exit_code", 3},
                                             {"exited_at_us", at}}}));
    auto again = master.next("exited");
    ASSERT_TRUE(again) << "round " << round;
    EXPECT_EQ((*again)["allocation_id"], "3.7.4");
    EXPECT_EQ((*again)["exit_code"], 3);
    EXPECT_EQ((*again)["exited_at_us"], at);
  }
  // An acknowledgement of something else changes nothing.
  master.send({{"v", 1}, {"type", "exit_ack"}, {"allocation_ids", {"9.9"}}});
  master.send({{"v", 1},
               {"type", "exit_ack"},
               {"allocation_ids", json::array({"3.7.4"})}});
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!a->unacknowledged_exits().empty()
         && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(a->unacknowledged_exits().empty());
  EXPECT_TRUE(a->allocations().empty());
  master.drop();
  auto hello = welcome();
  EXPECT_EQ(hello["running"], json::array());
  EXPECT_EQ(hello.count("exited"), 0u);
}

TEST_F(agent_with_fake_master, unknown_frame_type_is_answered_with_error) {
  start_agent();
  welcome();
  master.send({{"v", 1}, {"type", "teleport"}});
  auto err = master.next("error");
  ASSERT_TRUE(err);
  EXPECT_NE((*err)["message"].get<std::string>().find("teleport"),
            std::string::npos);
}

TEST(agent_token, agent_sends_its_token_and_a_wrong_one_is_refused) {
  det::agent::testing::fake_master master{model_files, "right"};
  for (auto token : {std::string{"wrong"}, std::string{"right"}}) {
    agent_settings s;
    s.cfg = *det::conf::parse_agent_config("");
    s.cfg.master.host = "127.0.0.1";
    s.cfg.master.port = master.port();
    s.cfg.token = token;
    s.agent_id = "agent-t";
    s.backoff.initial = 20ms;
    s.backoff.max_delay = 50ms;
    agent a{s};
    std::thread t{[&a] { a.run(); }};
    if (token == "right")
      EXPECT_TRUE(master.next("hello"));
    else
      EXPECT_FALSE(master.next("hello", 300ms));
    a.stop();
    t.join();
  }
  EXPECT_GE(master.refused(), 1);
  EXPECT_EQ(master.connections(), 1);
}

TEST_F(agent_with_fake_master, agent_beats_at_the_interval_the_welcome_names) {
  start_agent();
  ASSERT_TRUE(master.next("hello"));
  master.send({{"v", 1},
               {"type", "welcome"},
               {"agent_id", "agent-1"},
               {"heartbeat_interval_s", 1},
               {"heartbeat_interval_ms", 100}});
  // Ten beats well before the 10 s the agent starts with; answering each
  // keeps the connection alive (3 missed intervals would drop it).
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(master.next("heartbeat", 5s)) << "beat " << i;
    master.send({{"v", 1}, {"type", "heartbeat"}});
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_EQ(master.connections(), 1);
}

TEST_F(agent_with_fake_master, a_silent_master_is_dropped_and_dialled_again) {
  start_agent();
  ASSERT_TRUE(master.next("hello"));
  // 100 ms interval, 3 misses (agent.yaml default): the fake master never
  // sends anything after the welcome, so the agent must give up on the
  // connection after ~300 ms and say hello again on a new one.
  master.send({{"v", 1},
               {"type", "welcome"},
               {"agent_id", "agent-1"},
               {"heartbeat_interval_ms", 100}});
  ASSERT_TRUE(master.next("hello", 10s));
  EXPECT_GE(master.connections(), 2);
}
