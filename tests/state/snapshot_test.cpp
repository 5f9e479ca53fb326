// The snapshot codec: round trips, and corrupt snapshots refused with a
// message that says what is wrong.

#include "state_fixture.hpp"

namespace det::state::test {

namespace {

class snapshot : public state_fixture {
protected:
  void SetUp() override { busy_cluster(); }

  std::string corrupt(const nlohmann::json& j) {
    auto back = from_snapshot(j);
    EXPECT_FALSE(back);
    if (back)
      return {};
    EXPECT_EQ(code_of(back.error()), errc::corrupt_snapshot);
    return render(back.error());
  }
};

TEST_F(snapshot, a_busy_cluster_survives_a_round_trip_unchanged) {
  auto j = to_snapshot(s);
  EXPECT_EQ(j["snapshot_version"], snapshot_version);
  EXPECT_EQ(j["position"], s.position);
  auto back = from_snapshot(j);
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_TRUE(*back == s);
  EXPECT_EQ(to_snapshot(*back), j);
}

TEST_F(snapshot, the_snapshot_survives_being_written_as_text) {
  auto back = from_snapshot(nlohmann::json::parse(to_snapshot(s).dump()));
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_TRUE(*back == s);
}

TEST_F(snapshot, the_empty_state_survives_a_round_trip) {
  cluster_state empty;
  auto back = from_snapshot(to_snapshot(empty));
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_TRUE(*back == empty);
}

TEST_F(snapshot, events_apply_to_a_restored_state_as_to_the_original) {
  auto back = from_snapshot(to_snapshot(s));
  ASSERT_TRUE(back);
  auto ev = domain_event{trial_exited{1, "1.1", 0, "completed", 999}};
  recorded_event meta;
  meta.position = s.position + 1;
  ASSERT_FALSE(apply(s, meta, ev));
  ASSERT_FALSE(apply(*back, meta, ev));
  EXPECT_TRUE(*back == s);
}

TEST_F(snapshot, a_snapshot_that_is_not_an_object_is_refused) {
  EXPECT_TRUE(has(corrupt(nlohmann::json::array()), "expected an object"));
}

TEST_F(snapshot, an_unknown_snapshot_version_is_refused) {
  auto j = to_snapshot(s);
  j["snapshot_version"] = 99;
  EXPECT_TRUE(has(corrupt(j), "snapshot_version 99 is not supported"));
}

TEST_F(snapshot, a_missing_field_is_named) {
  auto j = to_snapshot(s);
  j.erase("trials");
  EXPECT_TRUE(has(corrupt(j), "field 'trials' is missing"));
}

TEST_F(snapshot, a_wrongly_typed_field_is_named_with_its_path) {
  auto j = to_snapshot(s);
  j["agents"][1]["slots"] = "many";
  auto msg = corrupt(j);
  EXPECT_TRUE(has(msg, "agents[1]: field 'slots'")) << msg;
}

TEST_F(snapshot, an_unknown_status_is_named) {
  auto j = to_snapshot(s);
  j["trials"][0]["status"] = "sleeping";
  auto msg = corrupt(j);
  EXPECT_TRUE(has(msg, "trials[0]: field 'status': unknown status 'sleeping'"))
      << msg;
}

TEST_F(snapshot, a_bad_pool_config_is_named) {
  auto j = to_snapshot(s);
  j["pools"][0]["config"]["scheduler"] = "round_robin";
  auto msg = corrupt(j);
  EXPECT_TRUE(has(msg, "pools[0]: field 'config'")) << msg;
  EXPECT_TRUE(has(msg, "round_robin")) << msg;
}

TEST_F(snapshot, a_duplicate_record_is_refused) {
  auto j = to_snapshot(s);
  j["experiments"].push_back(j["experiments"][0]);
  EXPECT_TRUE(has(corrupt(j), "duplicate entry"));
}

TEST_F(snapshot, a_snapshot_that_breaks_an_invariant_is_refused) {
  auto j = to_snapshot(s);
  for (auto& a : j["agents"])
    if (a["id"] == "a1")
      a["slots"][0] = "";
  auto msg = corrupt(j);
  EXPECT_TRUE(has(msg, "broken invariant")) << msg;
  EXPECT_TRUE(has(msg, "agent 'a1'")) << msg;
}

} // namespace

} // namespace det::state::test
