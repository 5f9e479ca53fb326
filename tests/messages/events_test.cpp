#include "messages/events.hpp"

#include "messages/errc.hpp"
#include "tests/support/sample_events.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace det {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

TEST(events, every_type_survives_encode_decode_encode_unchanged) {
  auto all = test::one_of_each();
  ASSERT_EQ(all.size(), std::variant_size_v<domain_event>)
      << "add the new event type to one_of_each()";
  for (const auto& ev : all) {
    auto env = to_envelope(ev);
    recorded_event rec{1, stream_of(ev), 1, env, 0};
    auto back = decode(rec);
    ASSERT_TRUE(back) << render(back.error());
    EXPECT_EQ(back->index(), ev.index());
    auto again = to_envelope(*back);
    EXPECT_EQ(again.type, env.type);
    EXPECT_EQ(again.schema_version, env.schema_version);
    EXPECT_EQ(again.payload, env.payload) << env.type;
  }
}

TEST(events, streams_are_named_by_aggregate) {
  EXPECT_EQ(stream_of(trial_created{42, 1, {}, "", 0}), "trial/42");
  EXPECT_EQ(stream_of(agent_connected{"a1", "p", 1, "cpu", "", 0}), "agent/a1");
  EXPECT_EQ(stream_of(master_started{}), "cluster");
  EXPECT_EQ(stream_of(session_started{"bob", std::string(64, '0'), 0}),
            "user/bob");
}

TEST(events, version_1_agent_connected_golden_file_is_upgraded_on_read) {
  recorded_event rec;
  rec.position = 17;
  rec.stream = "agent/agent-7";
  rec.body = {"agent_connected", 1,
              slurp(DET_TEST_DATA_DIR "/events/agent_connected.v1.json")};
  auto ev = decode(rec);
  ASSERT_TRUE(ev) << render(ev.error());
  auto& a = std::get<agent_connected>(*ev);
  EXPECT_EQ(a.agent_id, "agent-7");
  EXPECT_EQ(a.pool, "gpu-pool");
  EXPECT_EQ(a.slots, 8);
  EXPECT_EQ(a.slot_type, "cpu");
  // Re-encoding writes the current version.
  EXPECT_EQ(to_envelope(*ev).schema_version, agent_connected::version);
}

TEST(events, a_wrongly_typed_field_is_named_with_position_and_type) {
  recorded_event rec{
      12,
      "agent/a1",
      1,
      {"agent_connected", 2,
       R"({"agent_id":"a1","pool":"p","slots":"eight","slot_type":"cpu"})"},
      0};
  auto ev = decode(rec);
  ASSERT_FALSE(ev);
  EXPECT_EQ(code_of(ev.error()), errc::invalid_event);
  auto msg = render(ev.error());
  EXPECT_NE(msg.find("position 12"), std::string::npos) << msg;
  EXPECT_NE(msg.find("agent_connected"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'slots'"), std::string::npos) << msg;
}

TEST(events, a_missing_field_is_named) {
  recorded_event rec{
      5, "trial/1", 1, {"trial_exited", 1, R"({"trial_id":1})"}, 0};
  auto ev = decode(rec);
  ASSERT_FALSE(ev);
  EXPECT_NE(render(ev.error()).find("'allocation_id' is missing"),
            std::string::npos)
      << render(ev.error());
}

TEST(events, an_unknown_type_is_its_own_error) {
  recorded_event rec{8, "x/1", 1, {"event_from_the_future", 1, "{}"}, 0};
  auto ev = decode(rec);
  ASSERT_FALSE(ev);
  EXPECT_EQ(code_of(ev.error()), errc::unknown_event_type);
  EXPECT_NE(render(ev.error()).find("event_from_the_future"),
            std::string::npos);
}

TEST(events, a_newer_schema_version_than_known_is_refused) {
  recorded_event rec{
      8,
      "trial/1",
      1,
      {"trial_created", 9, R"({"trial_id":1,"experiment_id":1})"},
      0};
  auto ev = decode(rec);
  ASSERT_FALSE(ev);
  EXPECT_EQ(code_of(ev.error()), errc::invalid_event);
}

TEST(events, payload_that_is_not_json_is_refused) {
  recorded_event rec{3, "trial/1", 1, {"trial_created", 1, "{not json"}, 0};
  auto ev = decode(rec);
  ASSERT_FALSE(ev);
  EXPECT_NE(render(ev.error()).find("not valid JSON"), std::string::npos);
}

} // namespace det

namespace det {

TEST(events, every_aggregate_has_its_stream) {
  EXPECT_EQ(stream_of(pool_configured{}), "pool/");
  EXPECT_EQ(stream_of(instance_launch_requested{"gpu", 1, "t", 1, false, 0}),
            "pool/gpu");
  EXPECT_EQ(stream_of(agent_lost{"a9", "shut_down", 0}), "agent/a9");
  EXPECT_EQ(stream_of(instance_running{"i-1", 0}), "instance/i-1");
  EXPECT_EQ(stream_of(spot_request_fulfilled{"sir-1", "i-2", 0}),
            "instance/sir-1");
  EXPECT_EQ(stream_of(experiment_searcher_updated{4, {}, 0}), "experiment/4");
  EXPECT_EQ(stream_of(trial_restarted{8, 0}), "trial/8");
  EXPECT_EQ(stream_of(webhook_delivery_ended{9, 3, true, 1, 200, "", 0}),
            "webhook/3");
}

TEST(events, a_value_outside_a_closed_vocabulary_is_refused_on_decode) {
  struct bad {
    const char* type;
    const char* payload;
    const char* field;
  };
  const bad cases[] = {
      {"trial_exited", R"({"trial_id":1,"allocation_id":"1.1","reason":"x"})",
       "'reason'"},
      {"experiment_state_changed", R"({"experiment_id":1,"state":"GONE"})",
       "'state'"},
      {"agent_lost", R"({"agent_id":"a","reason":"bored"})", "'reason'"},
      {"instance_launch_failed",
       R"({"pool":"p","launch_seq":1,"error_kind":"?"})", "'error_kind'"},
      {"trial_metrics_reported",
       R"({"trial_id":1,"allocation_id":"1.1","kind":"a.b",)"
       R"("steps_completed":1,"metrics":{}})",
       "'kind'"},
      {"pool_configured", R"({"pool":"p","min_instances":3,"max_instances":1})",
       "'max_instances'"},
      {"experiment_submitted",
       R"({"experiment_id":1,"pool":"p","slots_per_trial":0})",
       "'slots_per_trial'"},
      {"instance_launch_requested",
       R"({"pool":"p","launch_seq":1,"client_token":"t","count":0})",
       "'count'"},
      {"webhook_saved",
       R"({"webhook_id":1,"url":"http://h/","webhook_type":"TEAMS",)"
       R"("mode":"WORKSPACE","triggers":[]})",
       "'webhook_type'"},
      {"webhook_saved",
       R"({"webhook_id":1,"url":"http://h/","webhook_type":"DEFAULT",)"
       R"("mode":"WORKSPACE","triggers":[{"id":1,"trigger_type":"X",)"
       R"("condition":{}}]})",
       "'triggers[].trigger_type'"},
      {"webhook_delivery_due",
       R"({"delivery_id":1,"webhook_id":1,"trigger_id":1,)"
       R"("trigger_type":"CUSTOM","payload":[]})",
       "'payload'"},
  };
  for (const auto& c : cases) {
    auto ev = decode(event_envelope{c.type, 1, c.payload}, "test");
    ASSERT_FALSE(ev) << c.type;
    EXPECT_EQ(code_of(ev.error()), errc::invalid_event);
    EXPECT_NE(render(ev.error()).find(c.field), std::string::npos)
        << render(ev.error());
  }
}

TEST(events, a_metric_report_of_any_group_decodes_and_a_bad_group_does_not) {
  // Logs from before metric groups hold training and validation only.
  for (const char* group : {"training", "validation", "group_b", "über"}) {
    auto payload = std::string{R"({"trial_id":1,"allocation_id":"1.1",)"}
                   + R"("kind":")" + group
                   + R"(","steps_completed":3,"metrics":{"x":1}})";
    auto ev =
        decode(event_envelope{"trial_metrics_reported", 1, payload}, "test");
    ASSERT_TRUE(ev) << group << ": " << render(ev.error());
    EXPECT_EQ(std::get<trial_metrics_reported>(*ev).kind, group);
  }
  for (const std::string& bad :
       {std::string{}, std::string{"a.b"}, std::string{"x\\u0001"},
        std::string(256, 'g')}) {
    auto payload = std::string{R"({"trial_id":1,"allocation_id":"1.1",)"}
                   + R"("kind":")" + bad
                   + R"(","steps_completed":3,"metrics":{}})";
    auto ev =
        decode(event_envelope{"trial_metrics_reported", 1, payload}, "test");
    ASSERT_FALSE(ev) << bad;
    EXPECT_NE(render(ev.error()).find("'kind'"), std::string::npos)
        << render(ev.error());
  }
}

TEST(events, validate_checks_an_event_built_in_memory_like_decode_does) {
  EXPECT_FALSE(validate(trial_exited{1, "1.1", 0, "completed", 0}));
  auto err = validate(trial_exited{1, "1.1", 0, "bored", 0});
  EXPECT_EQ(code_of(err), errc::invalid_event);
  EXPECT_NE(render(err).find("trial_exited"), std::string::npos);
}

TEST(events, optional_fields_take_their_defaults_when_absent) {
  auto ev =
      decode(event_envelope{"pool_configured", 1, R"({"pool":"p"})"}, "test");
  ASSERT_TRUE(ev) << render(ev.error());
  const auto& p = std::get<pool_configured>(*ev);
  EXPECT_EQ(p.scheduler, "priority");
  EXPECT_EQ(p.max_idle_agent_period_s, 1200);
  EXPECT_EQ(p.agent_reconnect_wait_s, 25);
}

TEST(events, every_known_type_is_listed_once_with_its_version) {
  auto types = known_event_types();
  EXPECT_EQ(types.size(), std::variant_size_v<domain_event>);
  EXPECT_NE(std::find(types.begin(), types.end(),
                      std::make_pair(std::string{"agent_connected"}, 2)),
            types.end());
}

} // namespace det

TEST(events, a_session_event_without_a_hex_token_hash_is_refused_naming_it) {
  auto err = det::validate(det::session_started{"bob", "the-token-itself", 0});
  ASSERT_TRUE(err);
  EXPECT_NE(det::render(err).find("token_hash"), std::string::npos)
      << det::render(err);
}
