// The user's records as master_core decides them (core/records.hpp):
// workspaces, projects, moving experiments, templates, pool bindings and
// the model registry; every decision goes to a log, and a restarted master
// (the log replayed) holds the same records.

#include "tests/core/core_cluster.hpp"

#include "core/records_parse.hpp"
#include "messages/errc.hpp"
#include "state/records_queries.hpp"

#include <gtest/gtest.h>

namespace det {
namespace {

using namespace det::test;
using nlohmann::json;

struct records : ::testing::Test {
  cluster c;

  /// The command `parse` makes of `args` (the request's body), decided as
  /// alice's; a parse refusal is the decision's.
  template <class Parse> decision rec(Parse parse, const json& args) {
    return c.run(decide_parsed(*c.core, parse(args), "alice", c.now));
  }

  /// The refusal's code, with its text in `why`.
  template <class Parse>
  errc refused(Parse parse, const json& args, std::string* why = nullptr) {
    auto d = rec(parse, args);
    EXPECT_TRUE(d.events.empty());
    if (why != nullptr)
      *why = render(d.refusal);
    return d.refusal ? code_of(d.refusal) : errc::none;
  }

  int64_t id_of(const decision& d) {
    EXPECT_FALSE(d.refusal) << render(d.refusal);
    return d.reply.value("id", int64_t{0});
  }
};

TEST_F(records, workspaces_and_projects_survive_a_restart) {
  auto w = id_of(rec(parse_workspace_create,
                     {{"name", "research"},
                      {"agentUserGroup", {{"agentUid", 1000}}},
                      {"checkpointStorageConfig",
                       {{"type", "shared_fs"}, {"host_path", "/tmp"}}}}));
  EXPECT_EQ(w, 2);
  auto p = id_of(rec(parse_project_create, {{"workspaceId", w},
                                            {"name", "vision"},
                                            {"description", "images"},
                                            {"key", "VIS"}}));
  EXPECT_EQ(p, 2);
  EXPECT_FALSE(
      rec(parse_project_edit, {{"id", p}, {"name", "vision2"}}).refusal);
  c.restart({});
  auto ws = state::find_workspace(c.core->state(), w);
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->name, "research");
  EXPECT_EQ(ws->agent_user_group["agentUid"], 1000);
  EXPECT_EQ(ws->checkpoint_storage["type"], "shared_fs");
  auto pr = state::find_project(c.core->state(), p);
  ASSERT_TRUE(pr);
  EXPECT_EQ(pr->name, "vision2");
  EXPECT_EQ(pr->description, "images");
  EXPECT_EQ(c.replayed(), c.core->state());
  // Ids are given out once, also after a restart.
  EXPECT_EQ(id_of(rec(parse_workspace_create, {{"name", "other"}})), 3);
}

TEST_F(records, names_are_unique_and_checked_at_the_boundary) {
  rec(parse_workspace_create, {{"name", "research"}});
  EXPECT_EQ(refused(parse_workspace_create, {{"name", "research"}}),
            errc::conflict);
  EXPECT_EQ(refused(parse_workspace_create, {{"name", "Uncategorized"}}),
            errc::conflict);
  std::string why;
  EXPECT_EQ(refused(parse_workspace_create, {{"name", "bad\x1b name"}}, &why),
            errc::invalid_argument);
  EXPECT_NE(why.find("name"), std::string::npos) << why;
  EXPECT_EQ(refused(parse_workspace_create, {{"name", std::string(256, 'x')}}),
            errc::invalid_argument);
  EXPECT_EQ(refused(parse_workspace_create, {{"name", ""}}),
            errc::invalid_argument);
  EXPECT_EQ(refused(parse_workspace_create, {}), errc::invalid_argument);
  EXPECT_EQ(refused(parse_workspace_create, {{"name", 7}}),
            errc::invalid_argument);
  EXPECT_EQ(refused(parse_workspace_create,
                    {{"name", "x"}, {"agentUserGroup", {{"agentUid", -1}}}},
                    &why),
            errc::invalid_argument);
  EXPECT_NE(why.find("agentUserGroup.agentUid"), std::string::npos) << why;
  EXPECT_EQ(refused(parse_workspace_create,
                    {{"name", "x"}, {"defaultComputePool", "nope"}}, &why),
            errc::invalid_argument);
  EXPECT_NE(why.find("defaultComputePool"), std::string::npos) << why;
  // Project names are unique within a workspace only; none is made in the
  // default workspace.
  EXPECT_EQ(refused(parse_project_create, {{"workspaceId", 1}, {"name", "p"}}),
            errc::invalid_argument);
  rec(parse_workspace_create, {{"name", "lab"}});
  rec(parse_project_create, {{"workspaceId", 2}, {"name", "p"}});
  EXPECT_EQ(refused(parse_project_create, {{"workspaceId", 2}, {"name", "p"}}),
            errc::conflict);
  EXPECT_FALSE(
      rec(parse_project_create, {{"workspaceId", 3}, {"name", "p"}}).refusal);
  EXPECT_EQ(refused(parse_project_create, {{"workspaceId", 9}, {"name", "q"}}),
            errc::not_found);
}

TEST_F(records, the_default_workspace_and_project_stay) {
  EXPECT_EQ(refused(parse_workspace_delete, {{"id", 1}}),
            errc::invalid_argument);
  EXPECT_EQ(refused(parse_project_delete, {{"id", 1}}), errc::invalid_argument);
  EXPECT_EQ(refused(parse_workspace_archive, {{"id", 1}, {"archived", true}}),
            errc::invalid_argument);
  EXPECT_EQ(refused(parse_workspace_edit, {{"id", 1}, {"name", "renamed"}}),
            errc::invalid_argument);
  // Its storage may change.
  EXPECT_FALSE(rec(parse_workspace_edit,
                   {{"id", 1}, {"checkpointStorageConfig", {{"type", "s3"}}}})
                   .refusal);
  EXPECT_EQ(state::find_workspace(c.core->state(), 1)->name, "Uncategorized");
}

TEST_F(records, a_workspace_or_project_in_use_is_not_deleted) {
  auto w = id_of(rec(parse_workspace_create, {{"name", "w"}}));
  auto p =
      id_of(rec(parse_project_create, {{"workspaceId", w}, {"name", "p"}}));
  auto sub = c.run(
      c.core->create_experiment(experiment(), "alice", true, false, c.now, p));
  ASSERT_FALSE(sub.refusal) << render(sub.refusal);
  EXPECT_EQ(c.experiment(1).project_id, p);
  EXPECT_EQ(refused(parse_workspace_delete, {{"id", w}}),
            errc::invalid_argument);
  EXPECT_EQ(refused(parse_project_delete, {{"id", p}}), errc::invalid_argument);
  EXPECT_FALSE(rec(parse_experiment_move,
                   {{"experimentId", 1}, {"destinationProjectId", 1}})
                   .refusal);
  EXPECT_EQ(c.experiment(1).project_id, 1);
  EXPECT_FALSE(rec(parse_project_delete, {{"id", p}}).refusal);
  EXPECT_FALSE(rec(parse_workspace_delete, {{"id", w}}).refusal);
  EXPECT_FALSE(state::find_workspace(c.core->state(), w));
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST_F(records,
       a_workspace_goes_with_its_projects_and_their_ended_experiments) {
  auto w = id_of(rec(parse_workspace_create, {{"name", "w"}}));
  auto p =
      id_of(rec(parse_project_create, {{"workspaceId", w}, {"name", "p"}}));
  id_of(rec(parse_project_create, {{"workspaceId", w}, {"name", "empty"}}));
  ASSERT_FALSE(c.run(c.core->create_experiment(experiment(), "alice", true,
                                               false, c.now, p))
                   .refusal);
  // Live, it keeps the workspace; ended, it goes with it (as upstream).
  auto live = c.core->decide(workspace_delete{w, "alice"}, c.now);
  EXPECT_EQ(code_of(live.refusal), errc::invalid_argument);
  EXPECT_NE(render(live.refusal).find("project 'p'"), std::string::npos)
      << render(live.refusal);
  c.run(c.core->kill_experiment(1, c.now));
  ASSERT_TRUE(state::is_terminal(c.experiment(1).status));
  auto d = rec(parse_workspace_delete, {{"id", w}});
  ASSERT_FALSE(d.refusal) << render(d.refusal);
  EXPECT_FALSE(state::find_workspace(c.core->state(), w));
  EXPECT_FALSE(state::find_project(c.core->state(), p));
  EXPECT_EQ(state::find_experiment(c.core->state(), 1), nullptr);
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST_F(records, experiments_are_created_in_their_project) {
  auto w = id_of(rec(parse_workspace_create, {{"name", "w"}}));
  auto p =
      id_of(rec(parse_project_create, {{"workspaceId", w}, {"name", "p"}}));
  auto missing =
      c.core->create_experiment(experiment(), "alice", true, false, c.now, 42);
  EXPECT_EQ(code_of(missing.refusal), errc::not_found);
  EXPECT_NE(render(missing.refusal).find("project '42' not found"),
            std::string::npos);
  auto cfg = experiment();
  cfg["workspace"] = "w";
  cfg["project"] = "p";
  auto named =
      c.run(c.core->create_experiment(cfg, "alice", true, false, c.now));
  ASSERT_FALSE(named.refusal) << render(named.refusal);
  EXPECT_EQ(c.experiment(1).project_id, p);
  cfg["project"] = "nope";
  EXPECT_EQ(
      code_of(
          c.core->create_experiment(cfg, "alice", true, false, c.now).refusal),
      errc::not_found);
  rec(parse_project_archive, {{"id", p}, {"archived", true}});
  EXPECT_EQ(code_of(c.core
                        ->create_experiment(experiment(), "alice", true, false,
                                            c.now, p)
                        .refusal),
            errc::invalid_argument);
  EXPECT_EQ(refused(parse_experiment_move,
                    {{"experimentId", 1}, {"destinationProjectId", p}}),
            errc::invalid_argument);
}

TEST_F(records, a_bound_pool_serves_only_its_workspaces) {
  auto w = id_of(rec(parse_workspace_create, {{"name", "w"}}));
  auto p =
      id_of(rec(parse_project_create, {{"workspaceId", w}, {"name", "p"}}));
  EXPECT_FALSE(
      rec(parse_pool_bind,
          {{"pool", "default"}, {"mode", "add"}, {"workspaceNames", {"w"}}})
          .refusal);
  auto refused_here =
      c.core->create_experiment(experiment(), "alice", true, false, c.now);
  EXPECT_EQ(code_of(refused_here.refusal), errc::invalid_argument);
  EXPECT_NE(
      render(refused_here.refusal).find("is not available to workspace id 1"),
      std::string::npos)
      << render(refused_here.refusal);
  EXPECT_FALSE(c.run(c.core->create_experiment(experiment(), "alice", true,
                                               false, c.now, p))
                   .refusal);
  EXPECT_EQ(refused(parse_pool_bind, {{"pool", "nope"}, {"mode", "add"}}),
            errc::not_found);
  EXPECT_EQ(refused(parse_pool_bind, {{"pool", "default"}, {"mode", "mix"}}),
            errc::invalid_argument);
  rec(parse_pool_bind,
      {{"pool", "default"}, {"mode", "remove"}, {"workspaceIds", {w}}});
  EXPECT_TRUE(c.core->state().pool_bindings.empty());
  // The cluster's default pools (the API names them) are never bound.
  auto to_default = [&](const char* mode) {
    return rec(parse_pool_bind, {{"pool", "default"},
                                 {"mode", mode},
                                 {"workspaceIds", {w}},
                                 {"defaultPools", {"default", "aux"}}});
  };
  for (auto mode : {"add", "replace"}) {
    auto d = to_default(mode);
    EXPECT_EQ(code_of(d.refusal), errc::invalid_argument) << mode;
    EXPECT_NE(
        render(d.refusal).find("default resource pool default cannot be bound"),
        std::string::npos)
        << render(d.refusal);
  }
  EXPECT_FALSE(to_default("remove").refusal);
  EXPECT_TRUE(c.core->state().pool_bindings.empty());
  EXPECT_EQ(c.replayed(), c.core->state());
}

TEST_F(records, namespace_bindings_are_kept_changed_and_deleted_by_cluster) {
  auto w = id_of(rec(parse_workspace_create,
                     {{"name", "team"}, {"namespaces", {{"", "team-a"}}}}));
  auto ns = [&](int64_t id) {
    return state::find_workspace(c.core->state(), id)->namespaces;
  };
  EXPECT_EQ(ns(w), (std::map<std::string, std::string>{{"", "team-a"}}));
  // Set again to the same: nothing written; to another: one event.
  EXPECT_TRUE(
      rec(parse_workspace_namespaces, {{"id", w}, {"set", {{"", "team-a"}}}})
          .events.empty());
  EXPECT_EQ(rec(parse_workspace_namespaces,
                {{"id", w}, {"set", {{"", "team-b"}, {"east", "gpu"}}}})
                .events.size(),
            2u);
  // The default workspace has no event of its own, and may be bound too.
  EXPECT_FALSE(
      rec(parse_workspace_namespaces, {{"id", 1}, {"set", {{"", "shared"}}}})
          .refusal);
  c.restart({});
  EXPECT_EQ(ns(w), (std::map<std::string, std::string>{{"", "team-b"},
                                                       {"east", "gpu"}}));
  EXPECT_EQ(ns(1), (std::map<std::string, std::string>{{"", "shared"}}));
  EXPECT_EQ(c.replayed(), c.core->state());
  EXPECT_EQ(state::find_workspace(c.core->state(), 1)->name, "Uncategorized");
  // Deleted by cluster name; the default namespace is not a binding.
  EXPECT_FALSE(
      rec(parse_workspace_namespaces, {{"id", w}, {"delete", {"east"}}})
          .refusal);
  std::string why;
  EXPECT_EQ(refused(parse_workspace_namespaces,
                    {{"id", w}, {"delete", {"east"}}}, &why),
            errc::invalid_argument);
  EXPECT_NE(why.find("default namespace"), std::string::npos) << why;
  // Binding to "" is going back to the default.
  EXPECT_EQ(rec(parse_workspace_namespaces, {{"id", w}, {"set", {{"", ""}}}})
                .events.size(),
            1u);
  EXPECT_TRUE(ns(w).empty());
  // What the log could not hold, or Kubernetes would not take, is refused
  // by its field.
  EXPECT_EQ(refused(parse_workspace_namespaces,
                    {{"id", w}, {"set", {{"", "Team_A"}}}}, &why),
            errc::invalid_argument);
  EXPECT_NE(why.find("set."), std::string::npos) << why;
  EXPECT_EQ(refused(parse_workspace_namespaces,
                    {{"id", w}, {"set", {{"", std::string(64, 'a')}}}}),
            errc::invalid_argument);
  EXPECT_EQ(refused(parse_workspace_namespaces,
                    {{"id", w}, {"set", {{std::string("a\0b", 3), "x"}}}}),
            errc::invalid_argument);
  EXPECT_EQ(refused(parse_workspace_namespaces, {{"id", w}, {"set", 7}}),
            errc::invalid_argument);
  EXPECT_EQ(refused(parse_workspace_namespaces,
                    {{"id", 99}, {"set", json::object()}}),
            errc::not_found);
}

TEST_F(records, templates_are_created_once_replaced_and_removed) {
  json cfg{{"resources", {{"slots_per_trial", 2}}}};
  EXPECT_FALSE(
      rec(parse_template_create, {{"name", "gpu"}, {"config", cfg}}).refusal);
  EXPECT_EQ(refused(parse_template_create, {{"name", "gpu"}, {"config", cfg}}),
            errc::conflict);
  EXPECT_EQ(refused(parse_template_set, {{"name", "none"}, {"config", cfg}}),
            errc::not_found);
  EXPECT_EQ(refused(parse_template_create, {{"name", "x"}, {"config", "text"}}),
            errc::invalid_argument);
  json other{{"max_restarts", 1}};
  EXPECT_FALSE(
      rec(parse_template_set, {{"name", "gpu"}, {"config", other}}).refusal);
  c.restart({});
  EXPECT_EQ(c.core->state().templates.at("gpu").config, other);
  EXPECT_FALSE(rec(parse_template_delete, {{"name", "gpu"}}).refusal);
  EXPECT_EQ(refused(parse_template_delete, {{"name", "gpu"}}), errc::not_found);
}

TEST_F(records, models_get_numbered_versions_of_known_checkpoints) {
  auto m = id_of(rec(parse_model_create, {{"name", "resnet"},
                                          {"description", "d"},
                                          {"metadata", {{"k", "v"}}},
                                          {"labels", {"a"}}}));
  EXPECT_EQ(m, 1);
  EXPECT_EQ(refused(parse_model_create, {{"name", "resnet"}}), errc::conflict);
  EXPECT_EQ(refused(parse_version_register,
                    {{"model", "resnet"}, {"checkpointUuid", "nope"}}),
            errc::not_found);
  // A trial reports a checkpoint.
  c.run(c.core->submit_experiment(experiment(), "alice", c.now));
  c.run(c.core->agent_connected("a1", "default", 4, "cpu", "", {}, c.now));
  c.run(c.core->allocation_running("1.1", c.now));
  c.run(c.core->checkpoint_reported("1.1", "ck-1", 10, json::object(), c.now));
  auto v =
      rec(parse_version_register,
          {{"model", "resnet"}, {"checkpointUuid", "ck-1"}, {"name", "v"}});
  ASSERT_FALSE(v.refusal) << render(v.refusal);
  EXPECT_EQ(v.reply["version"], 1);
  EXPECT_EQ(
      rec(parse_version_register, {{"model", "1"}, {"checkpointUuid", "ck-1"}})
          .reply["version"],
      2);
  rec(parse_version_delete, {{"model", "resnet"}, {"version", 2}});
  EXPECT_EQ(rec(parse_version_register,
                {{"model", "resnet"}, {"checkpointUuid", "ck-1"}})
                .reply["version"],
            3);
  auto w = id_of(rec(parse_workspace_create, {{"name", "w"}}));
  EXPECT_FALSE(
      rec(parse_model_edit, {{"model", "resnet"}, {"workspaceName", "w"}})
          .refusal);
  rec(parse_model_archive, {{"model", "resnet"}, {"archived", true}});
  EXPECT_EQ(refused(parse_version_register,
                    {{"model", "resnet"}, {"checkpointUuid", "ck-1"}}),
            errc::invalid_argument);
  c.restart({});
  const auto& model = c.core->state().models.at(m);
  EXPECT_EQ(model.workspace_id, w);
  EXPECT_TRUE(model.archived);
  ASSERT_EQ(model.versions.size(), 2u);
  EXPECT_EQ(model.versions[0].name, "v");
  EXPECT_EQ(model.versions[1].version, 3);
  EXPECT_FALSE(rec(parse_model_delete, {{"model", "resnet"}}).refusal);
  EXPECT_TRUE(c.core->state().models.empty());
  EXPECT_EQ(c.replayed(), c.core->state());
}

} // namespace
} // namespace det
