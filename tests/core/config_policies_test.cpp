// Config policies as master_core decides them (core/config_policies.hpp):
// who may set them, what is refused and named, how a restarted master
// holds them, and the constraints an experiment's creation is held to.

#include "tests/core/core_cluster.hpp"

#include "core/config_policies.hpp"
#include "core/records_parse.hpp"
#include "messages/errc.hpp"
#include "state/records_queries.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;
using nlohmann::json;

struct config_policies : ::testing::Test {
  cluster c;

  config_policies() {
    c.run(c.core->change_users(user_created{"root", true, "h", 1}));
    c.run(c.core->change_users(user_created{"ann", false, "h", 1}));
    c.run(c.core->change_users(user_created{"bob", false, "h", 1}));
  }

  /// The command `parse` makes of `args`, decided as `user`'s.
  template <class Parse>
  decision as(const std::string& user, Parse parse, const json& args) {
    return c.run(decide_parsed(*c.core, parse(args), user, c.now));
  }

  /// The refusal's code, with its text in `why`.
  template <class Parse>
  errc refused(const std::string& user, Parse parse, const json& args,
               std::string* why = nullptr) {
    auto d = as(user, parse, args);
    EXPECT_TRUE(d.events.empty());
    if (why != nullptr)
      *why = render(d.refusal);
    return d.refusal ? code_of(d.refusal) : errc::none;
  }

  static json set_args(int64_t ws, const std::string& type, json policies) {
    return {{"workspaceId", ws},
            {"workloadType", type},
            {"policies", std::move(policies)}};
  }

  static json limits(int64_t priority_limit, int64_t max_slots) {
    return {{"constraints",
             {{"priority_limit", priority_limit},
              {"resources", {{"max_slots", max_slots}}}}}};
  }

  int64_t workspace(const std::string& owner, const std::string& name) {
    auto d = as(owner, parse_workspace_create, {{"name", name}});
    EXPECT_FALSE(d.refusal) << render(d.refusal);
    return d.reply.value("id", int64_t{0});
  }
};

TEST_F(config_policies, global_and_workspace_policies_survive_a_restart) {
  auto w = workspace("ann", "research");
  json doc = limits(10, 4);
  doc["invariant_config"] = {{"records_per_epoch", 100}};
  auto d =
      as("root", parse_set_config_policies, set_args(w, "EXPERIMENT", doc));
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_EQ(d.reply["configPolicies"], doc);
  ASSERT_FALSE(
      as("root", parse_set_config_policies, set_args(0, "NTSC", limits(10, 4)))
          .refusal);
  c.restart({});
  EXPECT_EQ(config_policies_view(c.core->state(), w, "EXPERIMENT"), doc);
  EXPECT_EQ(config_policies_view(c.core->state(), 0, "NTSC"), limits(10, 4));
  EXPECT_EQ(config_policies_view(c.core->state(), 0, "EXPERIMENT"),
            json::object());
  EXPECT_TRUE(
      config_policies_view(c.core->state(), 99, "EXPERIMENT").is_null());
  EXPECT_EQ(c.replayed(), c.core->state());
  // Setting the same again writes nothing; deleting removes them, once.
  EXPECT_TRUE(
      as("root", parse_set_config_policies, set_args(w, "EXPERIMENT", doc))
          .events.empty());
  EXPECT_EQ(as("root", parse_delete_config_policies,
               {{"workspaceId", w}, {"workloadType", "EXPERIMENT"}})
                .events.size(),
            1u);
  EXPECT_TRUE(as("root", parse_delete_config_policies,
                 {{"workspaceId", w}, {"workloadType", "EXPERIMENT"}})
                  .events.empty());
  EXPECT_EQ(config_policies_view(c.core->state(), w, "EXPERIMENT"),
            json::object());
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST_F(config_policies, only_admins_set_global_and_owners_their_workspace) {
  auto w = workspace("ann", "annspace");
  std::string why;
  EXPECT_EQ(refused("ann", parse_set_config_policies,
                    set_args(0, "EXPERIMENT", limits(10, 4)), &why),
            errc::permission_denied);
  EXPECT_NE(why.find("global"), std::string::npos) << why;
  EXPECT_EQ(refused("bob", parse_set_config_policies,
                    set_args(w, "EXPERIMENT", limits(10, 4)), &why),
            errc::permission_denied);
  EXPECT_NE(why.find("annspace"), std::string::npos) << why;
  EXPECT_EQ(refused("bob", parse_delete_config_policies,
                    {{"workspaceId", w}, {"workloadType", "EXPERIMENT"}}),
            errc::permission_denied);
  EXPECT_FALSE(as("ann", parse_set_config_policies,
                  set_args(w, "EXPERIMENT", limits(10, 4)))
                   .refusal);
  EXPECT_EQ(refused("root", parse_set_config_policies,
                    set_args(42, "EXPERIMENT", limits(10, 4))),
            errc::not_found);
}

TEST_F(config_policies, bad_documents_are_refused_naming_the_field) {
  struct bad_case {
    std::string type;
    json doc;
    std::string named;
  };
  std::vector<bad_case> cases{
      {"EXPERIMENT", {{"constraint", json::object()}}, "'constraint'"},
      {"EXPERIMENT",
       {{"constraints", {{"priority_limit", "high"}}}},
       "constraints.priority_limit"},
      {"EXPERIMENT",
       {{"constraints", {{"resources", {{"max_slots", -1}}}}}},
       "constraints.resources.max_slots"},
      {"EXPERIMENT",
       {{"constraints", {{"resources", {{"slots", 2}}}}}},
       "constraints.resources.slots"},
      {"NTSC",
       {{"invariant_config", {{"description", "x"}}}},
       "invariant_config"},
      {"EXPERIMENT",
       {{"invariant_config", {{"resources", {{"priority", 5}}}}},
        {"constraints", {{"priority_limit", 10}}}},
       "invariant_config.resources.priority"},
      {"EXPERIMENT",
       {{"invariant_config", {{"resources", {{"slots_per_trial", 8}}}}},
        {"constraints", {{"resources", {{"max_slots", 4}}}}}},
       "invariant_config.resources.slots_per_trial"},
      {"EXPERIMENT",
       {{"invariant_config", {{"description", std::string("a\0b", 3)}}}},
       "configPolicies.invariant_config.description"},
      {"TASKS", limits(1, 1), "workloadType"},
  };
  for (const auto& bc : cases) {
    std::string why;
    EXPECT_EQ(refused("root", parse_set_config_policies,
                      set_args(0, bc.type, bc.doc), &why),
              errc::invalid_argument)
        << bc.doc.dump();
    EXPECT_NE(why.find(bc.named), std::string::npos) << why;
  }
  // A workspace's invariant config may not break the global constraints.
  auto w = workspace("ann", "w");
  ASSERT_FALSE(as("root", parse_set_config_policies,
                  set_args(0, "EXPERIMENT", limits(10, 4)))
                   .refusal);
  std::string why;
  EXPECT_EQ(refused("root", parse_set_config_policies,
                    set_args(w, "EXPERIMENT",
                             {{"invariant_config",
                               {{"resources", {{"max_slots", 8}}}}}}),
                    &why),
            errc::invalid_argument);
  EXPECT_NE(why.find("global"), std::string::npos) << why;
}

json with_resources(json resources) {
  auto e = experiment();
  e["resources"] = std::move(resources);
  return e;
}

TEST_F(config_policies, creation_is_refused_past_the_constraints) {
  ASSERT_FALSE(as("root", parse_set_config_policies,
                  set_args(0, "EXPERIMENT", limits(10, 4)))
                   .refusal);
  auto create = [this](json config) {
    return c.run(c.core->create_experiment(config, "ann", true, false, c.now));
  };
  auto d = create(with_resources({{"slots_per_trial", 8}}));
  ASSERT_TRUE(d.refusal);
  EXPECT_EQ(code_of(d.refusal), errc::invalid_argument);
  EXPECT_NE(render(d.refusal).find("resources.slots_per_trial"),
            std::string::npos)
      << render(d.refusal);
  d = create(with_resources({{"max_slots", 5}}));
  EXPECT_NE(render(d.refusal).find("resources.max_slots"), std::string::npos)
      << render(d.refusal);
  // Smaller is more urgent on det-agents: 5 is past a limit of 10.
  d = create(with_resources({{"priority", 5}}));
  EXPECT_NE(render(d.refusal).find("resources.priority"), std::string::npos)
      << render(d.refusal);
  EXPECT_TRUE(state::find_experiment(c.core->state(), 1) == nullptr);
  d = create(with_resources({{"priority", 10}, {"slots_per_trial", 4}}));
  EXPECT_FALSE(d.refusal) << render(d.refusal);
  // Once deleted, nothing holds creation back.
  as("root", parse_delete_config_policies,
     {{"workspaceId", 0}, {"workloadType", "EXPERIMENT"}});
  EXPECT_FALSE(create(with_resources({{"slots_per_trial", 8}})).refusal);
}

TEST_F(config_policies, a_workspace_limit_applies_to_its_experiments_only) {
  auto w = workspace("ann", "small");
  auto p = as("ann", parse_project_create, {{"workspaceId", w}, {"name", "p"}})
               .reply.value("id", int64_t{0});
  ASSERT_FALSE(as("ann", parse_set_config_policies,
                  set_args(w, "EXPERIMENT", limits(1, 2)))
                   .refusal);
  auto big = with_resources({{"slots_per_trial", 4}});
  EXPECT_TRUE(
      c.run(c.core->create_experiment(big, "ann", true, false, c.now, p))
          .refusal);
  EXPECT_FALSE(
      c.run(c.core->create_experiment(big, "ann", true, false, c.now)).refusal);
}

TEST(config_policy_merge, invariant_values_win_and_objects_merge) {
  json config = {{"resources", {{"slots_per_trial", 2}, {"priority", 42}}},
                 {"records_per_epoch", 5}};
  json inv = {{"resources", {{"priority", 10}}}, {"records_per_epoch", 100}};
  auto out = merge_invariant(config, inv);
  EXPECT_EQ(out["resources"]["slots_per_trial"], 2);
  EXPECT_EQ(out["resources"]["priority"], 10);
  EXPECT_EQ(out["records_per_epoch"], 100);
}

} // namespace
} // namespace det
