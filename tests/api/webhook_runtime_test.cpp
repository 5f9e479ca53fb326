// The webhook runtime (api/webhook_runtime.hpp) without a master: TASK_LOG
// patterns are RE2 (a pattern that makes backtracking engines take
// exponential time matches a long line at once: without RE2 this test
// hits its CTest timeout), a match is reported once per trial and trigger,
// and the deliveries it is told of go to its sender.

#include "api/webhook_runtime.hpp"

#include <gtest/gtest.h>

namespace det::api {
namespace {

using nlohmann::json;

struct no_http : net::http_client {
  caf::expected<net::http_response> send(const net::http_request&) override {
    net::http_response r;
    r.status = 200;
    return r;
  }
};

state::cluster_state with_pattern(const std::string& regex) {
  state::cluster_state s;
  state::webhook_info w;
  w.id = 1;
  w.url = "http://127.0.0.1:9/h";
  w.webhook_type = "DEFAULT";
  w.mode = "WORKSPACE";
  w.triggers = {{{"id", 4},
                 {"trigger_type", "TASK_LOG"},
                 {"condition", {{"regex", regex}}}}};
  s.webhooks[1] = w;
  return s;
}

TEST(webhook_runtime, a_hostile_pattern_scans_a_long_line_in_linear_time) {
  webhook_runtime rt{std::make_shared<no_http>(), "k", {}};
  rt.load(with_pattern("(a+)+$"));
  std::vector<webhook_log_match> sent;
  rt.set_command_sink([&](command c) {
    ASSERT_TRUE(std::holds_alternative<webhook_log_match>(c));
    sent.push_back(std::get<webhook_log_match>(c));
  });
  // Backtracking engines take ~2^n steps on this line; RE2 is linear.
  rt.scan_log(7, "agent-1", {std::string(16000, 'a') + "!"});
  EXPECT_TRUE(sent.empty());
  rt.scan_log(7, "agent-1", {"no", std::string(100, 'a')});
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].trial_id, 7);
  EXPECT_EQ(sent[0].trigger_id, 4);
  EXPECT_EQ(sent[0].node, "agent-1");
  // Once per trial and trigger; another trial fires on its own.
  rt.scan_log(7, "agent-1", {"aaa"});
  rt.scan_log(8, "agent-1", {"aaa"});
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1].trial_id, 8);
}

TEST(webhook_runtime, a_deleted_webhooks_pattern_no_longer_matches) {
  webhook_runtime rt{std::make_shared<no_http>(), "k", {}};
  rt.load(with_pattern("error"));
  int sent = 0;
  rt.set_command_sink([&](command) { ++sent; });
  rt.on_durable({webhook_deleted{1, "admin", 0}});
  rt.scan_log(7, "a", {"an error"});
  EXPECT_EQ(sent, 0);
}

TEST(webhook_runtime, the_test_route_answers_not_found_for_an_unknown_id) {
  webhook_runtime rt{std::make_shared<no_http>(), "k", {}};
  rt.load(with_pattern("x"));
  EXPECT_EQ(rt.test(2, 0).reason, "not found");
  EXPECT_TRUE(rt.test(1, 0).delivered);
}

} // namespace
} // namespace det::api
