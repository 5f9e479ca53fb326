#include "agent/model_fetch.hpp"
#include "messages/agent_protocol.hpp"

#include <gtest/gtest.h>

using namespace det::agent;
using nlohmann::json;

TEST(agent_protocol, hello_carries_slots_and_running_allocations) {
  hello_info h{"a1", "default", 2, "cpu", "", {"x.1", "y.2"}, {}};
  auto j = json::parse(hello_frame(h));
  EXPECT_EQ(j["v"], 1);
  EXPECT_EQ(j["type"], "hello");
  EXPECT_EQ(j["agent_id"], "a1");
  EXPECT_EQ(j["slots"], 2);
  EXPECT_EQ(j["slot_type"], "cpu");
  EXPECT_EQ(j["running"], json::array({"x.1", "y.2"}));
  EXPECT_EQ(j.count("exited"), 0u) << "no exits: the field is left out";
}

TEST(agent_protocol, hello_lists_the_exits_the_master_has_not_acknowledged) {
  hello_info h{"a1", "default", 2, "cpu", "", {"x.1"}, {{"x.1", 0, 17}}};
  auto j = json::parse(hello_frame(h));
  EXPECT_EQ(j["exited"], json::parse(R"([{"allocation_id":"x.1",
    "exit_code":0,"exited_at_us":17}])"));
  auto e = json::parse(exited_frame("x.1", 0, 17));
  EXPECT_EQ(e["exited_at_us"], 17);
}

TEST(agent_protocol, exit_ack_names_the_allocations_and_needs_one) {
  auto f = parse_master_frame(
      R"({"v":1,"type":"exit_ack","allocation_ids":["a.1","b.2"]})");
  ASSERT_TRUE(f) << det::render(f.error());
  EXPECT_EQ(f->allocation_ids, (std::vector<std::string>{"a.1", "b.2"}));
  EXPECT_FALSE(parse_master_frame(R"({"v":1,"type":"exit_ack"})"));
  EXPECT_FALSE(
      parse_master_frame(R"({"v":1,"type":"exit_ack","allocation_ids":[""]})"));
}

TEST(agent_protocol, exited_and_log_frames_have_the_documented_fields) {
  auto e = json::parse(exited_frame("a.1", 137));
  EXPECT_EQ(e["type"], "exited");
  EXPECT_EQ(e["exit_code"], 137);
  auto l = json::parse(log_frame("a.1", 7, {"one", "two"}));
  EXPECT_EQ(l["trial_id"], 7);
  EXPECT_EQ(l["lines"], json::array({"one", "two"}));
}

TEST(agent_protocol, log_lines_with_invalid_utf8_still_encode) {
  auto l = json::parse(log_frame("a", 1, {std::string{"bad \xff byte"}}));
  EXPECT_EQ(l["lines"].size(), 1u);
}

TEST(agent_protocol, start_frame_is_parsed_with_every_field) {
  auto f = parse_master_frame(R"({"v":1,"type":"start","allocation_id":"3.7.1",
    "trial_id":7,"experiment_id":3,"slots":[0,1],"hparams":{"lr":0.1},
    "target_length":50,"resume_from":{"uuid":"u-1","steps_completed":20},
    "entrypoint":"python3 train.py","env":{"DET_SESSION_TOKEN":"s"}})");
  ASSERT_TRUE(f) << det::render(f.error());
  EXPECT_EQ(f->type, "start");
  EXPECT_EQ(f->start.trial_id, 7);
  EXPECT_EQ(f->start.slots, (std::vector<int64_t>{0, 1}));
  ASSERT_TRUE(f->start.resume_from);
  EXPECT_EQ(f->start.resume_from->steps_completed, 20);
  auto env = trial_environment(f->start, "http://m:8080", "/ck", "agent-1");
  EXPECT_EQ(env["DET_MASTER"], "http://m:8080");
  EXPECT_EQ(env["DET_ALLOCATION_ID"], "3.7.1");
  EXPECT_EQ(json::parse(env["DET_HPARAMS"])["lr"], 0.1);
  EXPECT_EQ(env["DET_TARGET_LENGTH"], "50");
  EXPECT_EQ(env["DET_LATEST_CHECKPOINT"], "u-1");
  EXPECT_EQ(env["DET_LATEST_CHECKPOINT_STEPS"], "20");
  EXPECT_EQ(env["DET_CHECKPOINT_DIR"], "/ck");
  EXPECT_EQ(env["DET_SLOT_IDS"], "[0,1]");
  EXPECT_EQ(env["DET_AGENT_ID"], "agent-1");
  EXPECT_EQ(env["DET_TASK_TYPE"], "TRIAL");
  EXPECT_EQ(env["DET_SESSION_TOKEN"], "s");
}

TEST(agent_protocol, start_without_resume_gives_an_empty_checkpoint) {
  auto f = parse_master_frame(R"({"v":1,"type":"start","allocation_id":"a",
    "entrypoint":"true","resume_from":null})");
  ASSERT_TRUE(f);
  auto env = trial_environment(f->start, "http://m", "/ck");
  EXPECT_EQ(env["DET_LATEST_CHECKPOINT"], "");
}

TEST(agent_protocol, malformed_frames_are_refused_naming_the_problem) {
  EXPECT_FALSE(parse_master_frame("not json"));
  auto f = parse_master_frame(R"({"v":1,"type":"start","entrypoint":"x"})");
  ASSERT_FALSE(f);
  EXPECT_NE(det::render(f.error()).find("allocation_id"), std::string::npos);
  EXPECT_FALSE(parse_master_frame(R"({"v":1,"type":"kill"})"));
}

TEST(agent_protocol, unknown_frame_types_parse_so_they_can_be_answered) {
  auto f = parse_master_frame(R"({"v":1,"type":"teleport"})");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->type, "teleport");
}

TEST(agent_protocol, base64_decodes_standard_and_unpadded_text) {
  EXPECT_EQ(base64_decode("aGVsbG8="), "hello");
  EXPECT_EQ(base64_decode("aGVsbG8"), "hello");
  EXPECT_EQ(base64_decode("aGVs\nbG8="), "hello");
  EXPECT_FALSE(base64_decode("a*b"));
}

TEST(agent_protocol, welcome_carries_the_heartbeat_interval_in_both_units) {
  auto f = parse_master_frame(
      R"({"v":1,"type":"welcome","agent_id":"a","heartbeat_interval_s":1,"heartbeat_interval_ms":250})");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->heartbeat_interval_s, 1);
  EXPECT_EQ(f->heartbeat_interval_ms, 250);
  auto old = parse_master_frame(
      R"({"v":1,"type":"welcome","agent_id":"a","heartbeat_interval_s":7})");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->heartbeat_interval_ms, 0);
}

// -- the master's side: frames from agents ---------------------------------

namespace {

std::string agent_error(const std::string& text, std::string* type = nullptr) {
  det::agent::agent_frame f;
  auto err = parse_agent_frame(text, f);
  if (type)
    *type = f.type;
  return err ? det::render(err) : "<no error>";
}

} // namespace

TEST(agent_protocol, every_frame_the_agent_builds_decodes_on_the_master) {
  hello_info h{"a1", "gpu", 4, "cuda", "i-0abc", {"1.1", "2.1"}, {}};
  agent_frame f;
  ASSERT_FALSE(parse_agent_frame(hello_frame(h), f));
  EXPECT_EQ(f.type, "hello");
  EXPECT_EQ(f.hello.agent_id, "a1");
  EXPECT_EQ(f.hello.resource_pool, "gpu");
  EXPECT_EQ(f.hello.slots, 4);
  EXPECT_EQ(f.hello.slot_type, "cuda");
  EXPECT_EQ(f.hello.instance_id, "i-0abc");
  EXPECT_EQ(f.hello.running, (std::vector<std::string>{"1.1", "2.1"}));
  ASSERT_FALSE(parse_agent_frame(exited_frame("1.1", -9), f));
  EXPECT_EQ(f.type, "exited");
  EXPECT_EQ(f.allocation_id, "1.1");
  EXPECT_EQ(f.exit_code, -9);
  ASSERT_FALSE(parse_agent_frame(running_frame("1.1"), f));
  EXPECT_EQ(f.allocation_id, "1.1");
  ASSERT_FALSE(parse_agent_frame(log_frame("1.1", 7, {"a", "b"}), f));
  EXPECT_EQ(f.trial_id, 7);
  EXPECT_EQ(f.lines, (std::vector<std::string>{"a", "b"}));
  ASSERT_FALSE(parse_agent_frame(heartbeat_frame(), f));
  EXPECT_EQ(f.type, "heartbeat");
  // Defaults of an older agent's hello.
  ASSERT_FALSE(
      parse_agent_frame(R"({"type":"hello","agent_id":"a","slots":0})", f));
  EXPECT_EQ(f.hello.resource_pool, "default");
  EXPECT_EQ(f.hello.slot_type, "cpu");
}

// api/agent_ws.cpp read frames with nlohmann's value()/get<int32_t>(): a
// field of the wrong type threw on the I/O thread (the agent was dropped
// with 1011 instead of told), and a float such as 1e10 for slots or
// exit_code was converted to int32 out of range, which is undefined.
TEST(agent_protocol, a_field_of_the_wrong_type_or_range_is_named) {
  std::string type;
  EXPECT_NE(agent_error(R"({"type":1})").find("frame.type: expected text"),
            std::string::npos);
  EXPECT_NE(agent_error("[]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(
      agent_error(R"({"type":"hello","agent_id":"a","slots":1e10})", &type)
          .find("hello.slots: expected a whole number"),
      std::string::npos);
  EXPECT_EQ(type, "hello") << "a bad hello must be told from other frames";
  EXPECT_NE(agent_error(R"({"type":"hello","agent_id":"a","slots":1.5})")
                .find("hello.slots"),
            std::string::npos);
  EXPECT_NE(agent_error(R"({"type":"hello","agent_id":"a","slots":-1})")
                .find("hello.slots"),
            std::string::npos);
  EXPECT_NE(agent_error(R"({"type":"hello","slots":1})").find("agent_id"),
            std::string::npos);
  EXPECT_NE(
      agent_error(R"({"type":"hello","agent_id":"a","slots":1,"running":[1]})")
          .find("hello.running"),
      std::string::npos);
  EXPECT_NE(agent_error(R"({"type":"hello","agent_id":7,"slots":1})")
                .find("hello.agent_id: expected text"),
            std::string::npos);
  EXPECT_NE(
      agent_error(
          R"({"type":"exited","allocation_id":"1.1","exit_code":1e300})", &type)
          .find("exited.exit_code"),
      std::string::npos);
  EXPECT_EQ(type, "exited");
  EXPECT_NE(
      agent_error(
          R"({"type":"exited","allocation_id":"1.1","exit_code":4294967296})")
          .find("exited.exit_code"),
      std::string::npos);
  EXPECT_NE(agent_error(R"({"type":"running","allocation_id":["x"]})")
                .find("running.allocation_id"),
            std::string::npos);
  EXPECT_NE(agent_error(R"({"type":"log","trial_id":"7","lines":[]})")
                .find("log.trial_id"),
            std::string::npos);
  EXPECT_EQ(agent_error(R"({"type":"exited","allocation_id":"1.1"})"),
            "<no error>");
  EXPECT_EQ(agent_error(R"({"type":"teleport","x":1})"), "<no error>");
}

// A welcome's interval was converted from any JSON number with a plain
// cast: 1e300 is undefined behaviour (UBSan in fuzz_agent_protocol), and a
// huge whole number overflowed the agent's heartbeat arithmetic later.
TEST(agent_protocol, a_welcome_interval_out_of_range_is_refused) {
  for (auto bad : {R"({"type":"welcome","heartbeat_interval_s":1e300})",
                   R"({"type":"welcome","heartbeat_interval_ms":-1})",
                   R"({"type":"welcome","heartbeat_interval_s":9e18})"}) {
    auto f = parse_master_frame(bad);
    ASSERT_FALSE(f) << bad;
    EXPECT_NE(det::render(f.error()).find("welcome.heartbeat_interval"),
              std::string::npos);
  }
  auto f = parse_master_frame(
      R"({"type":"welcome","heartbeat_interval_s":10,"heartbeat_interval_ms":2500})");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->heartbeat_interval_s, 10);
  EXPECT_EQ(f->heartbeat_interval_ms, 2500);
}

TEST(agent_protocol, the_exits_a_hello_keeps_decode_on_the_master) {
  hello_info h{"a1", "default", 1, "cpu", "", {"1.1"}, {}};
  h.exited = {{"1.1", 0, 17}, {"2.1", -9, 0}};
  agent_frame f;
  ASSERT_FALSE(parse_agent_frame(hello_frame(h), f));
  ASSERT_EQ(f.hello.exited.size(), 2u);
  EXPECT_EQ(f.hello.exited[0].allocation_id, "1.1");
  EXPECT_EQ(f.hello.exited[0].exit_code, 0);
  EXPECT_EQ(f.hello.exited[0].exited_at_us, 17);
  EXPECT_EQ(f.hello.exited[1].exit_code, -9);
  // A hostile list is refused naming the field.
  EXPECT_NE(agent_error(R"({"type":"hello","agent_id":"a","slots":1,
                            "exited":"all"})")
                .find("hello.exited"),
            std::string::npos);
  EXPECT_NE(agent_error(R"({"type":"hello","agent_id":"a","slots":1,
                            "exited":[{"allocation_id":"1.1","exit_code":"0"}]})")
                .find("exit_code"),
            std::string::npos);
  EXPECT_NE(agent_error(R"({"type":"hello","agent_id":"a","slots":1,
                            "exited":[{"exit_code":0}]})")
                .find("hello.exited[].allocation_id"),
            std::string::npos);
}
