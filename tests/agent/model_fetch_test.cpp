// The model definition download against a fake master on 127.0.0.1: a master
// that is away (restarting: refused connections, 502/503/504) is waited out
// within a budget; a refusal is final at once. Found by the chaos suite: a
// master killed right after a submit made the trial's first run fail and
// count a restart. The waits are recorded, never slept.

#include "agent/model_fetch.hpp"
#include "fake_master.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace det::agent;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

struct fetch_fixture : ::testing::Test {
  det::agent::testing::fake_master master{
      std::map<std::string, std::string>{{"train.py", "print(1)\n"}}};
  std::string dir = (fs::temp_directory_path()
                     / ("det-model-fetch-" + std::to_string(getpid())))
                        .string();
  std::vector<std::chrono::milliseconds> waits;
  fetch_retry retry;

  fetch_fixture() {
    retry.sleep = [this](std::chrono::milliseconds d) { waits.push_back(d); };
  }
  ~fetch_fixture() override {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(master.port());
  }
};

/// A port on 127.0.0.1 that nothing listens on.
uint16_t closed_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  bind(fd, reinterpret_cast<sockaddr*>(&a), len);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

} // namespace

TEST_F(fetch_fixture,
       a_master_restarting_during_the_model_download_does_not_fail_the_trial) {
  master.fail_model_def(3, 503);
  auto err = fetch_model_def(url(), 3, {}, dir, retry);
  ASSERT_FALSE(err) << det::render(err);
  EXPECT_TRUE(fs::exists(fs::path{dir} / "train.py"));
  EXPECT_EQ(waits, (std::vector<std::chrono::milliseconds>{250ms, 500ms, 1s}));
  EXPECT_EQ(master.model_def_auth().size(), 4u);
}

TEST_F(fetch_fixture, a_refused_connection_is_retried_until_the_caller_stops) {
  retry.stop = [this] { return waits.size() >= 3; };
  auto err = fetch_model_def(
      "http://127.0.0.1:" + std::to_string(closed_port()), 3, {}, dir, retry);
  EXPECT_TRUE(err);
  EXPECT_EQ(waits.size(), 3u);
}

TEST_F(fetch_fixture, a_master_away_longer_than_the_budget_fails_the_download) {
  master.fail_model_def(100, 502);
  retry.budget = 2s;
  auto err = fetch_model_def(url(), 3, {}, dir, retry);
  EXPECT_TRUE(err);
  // 0.25 + 0.5 + 1 s; the next 2 s wait would pass the budget.
  EXPECT_EQ(waits.size(), 3u);
}

TEST_F(fetch_fixture, a_refusal_is_final_at_once) {
  master.fail_model_def(1, 404);
  auto err = fetch_model_def(url(), 3, {}, dir, retry);
  EXPECT_TRUE(err);
  EXPECT_TRUE(waits.empty());
  EXPECT_EQ(master.model_def_auth().size(), 1u);
}
