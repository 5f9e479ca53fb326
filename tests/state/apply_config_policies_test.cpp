// config_policies_set applied to the state: set, replaced and removed per
// scope and workload type; refused for a workspace that does not exist;
// kept by snapshots, and absent from a snapshot older than them.

#include "state_fixture.hpp"

#include "state/records_queries.hpp"

namespace det::state::test {

namespace {

class config_policies : public state_fixture {};

const nlohmann::json policy_limits_doc = {{"priority_limit", 10},
                                          {"resources", {{"max_slots", 4}}}};

TEST_F(config_policies, a_workspace_and_the_global_scope_hold_their_own) {
  ok(config_policies_set{0, "EXPERIMENT", nullptr, policy_limits_doc, "admin",
                         10});
  // The default workspace exists without an event.
  ok(config_policies_set{
      1, "EXPERIMENT", {{"description", "d"}}, nullptr, "admin", 11});
  ASSERT_EQ(s.global_config_policies.count("EXPERIMENT"), 1u);
  EXPECT_EQ(s.global_config_policies.at("EXPERIMENT").constraints,
            policy_limits_doc);
  const auto& w = s.workspaces.at(1).config_policies.at("EXPERIMENT");
  EXPECT_EQ(w.invariant_config["description"], "d");
  EXPECT_TRUE(w.constraints.is_null());
  EXPECT_EQ(w.username, "admin");
  EXPECT_EQ(w.updated_at_us, 11);
  EXPECT_EQ(s.workspaces.at(1).config_policies.count("NTSC"), 0u);
}

TEST_F(config_policies, both_parts_null_removes_the_scopes_policies) {
  ok(config_policies_set{0, "NTSC", nullptr, policy_limits_doc, "admin", 10});
  ok(config_policies_set{0, "NTSC", nullptr, nullptr, "admin", 11});
  EXPECT_TRUE(s.global_config_policies.empty());
}

TEST_F(config_policies, an_unknown_workspace_is_refused) {
  EXPECT_NE(refused(config_policies_set{7, "EXPERIMENT", nullptr,
                                        policy_limits_doc, "admin", 10})
                .find("workspace"),
            std::string::npos);
}

TEST_F(config_policies, a_deleted_workspace_takes_its_policies_along) {
  ok(workspace_saved{2, "w", false, nlohmann::json::object(),
                     nlohmann::json::object(), "", "", "ann", 5});
  ok(config_policies_set{2, "EXPERIMENT", nullptr, policy_limits_doc, "ann",
                         10});
  ok(workspace_deleted{2, "admin", 11});
  ok(workspace_saved{3, "w", false, nlohmann::json::object(),
                     nlohmann::json::object(), "", "", "ann", 12});
  EXPECT_TRUE(s.workspaces.at(3).config_policies.empty());
}

TEST_F(config_policies, policies_survive_a_snapshot_and_older_ones_have_none) {
  ok(config_policies_set{0,
                         "EXPERIMENT",
                         {{"records_per_epoch", 100}},
                         policy_limits_doc,
                         "admin",
                         10});
  ok(config_policies_set{1, "NTSC", nullptr, policy_limits_doc, "admin", 11});
  auto back = from_snapshot(to_snapshot(s));
  ASSERT_TRUE(back) << render(back.error());
  EXPECT_TRUE(*back == s);
  auto j = to_snapshot(s);
  j.erase("global_config_policies");
  for (auto& w : j["workspaces"])
    w.erase("config_policies");
  auto old = from_snapshot(j);
  ASSERT_TRUE(old) << render(old.error());
  EXPECT_TRUE(old->global_config_policies.empty());
  EXPECT_TRUE(old->workspaces.at(1).config_policies.empty());
}

} // namespace

} // namespace det::state::test
