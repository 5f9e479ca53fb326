// Workspaces and projects as upstream's own workspace test uses them: a
// project moved between workspaces, and each refusal around archived
// workspaces and projects and the default ones (403 for a non-admin where
// upstream forbids, 400 naming why otherwise).

#include "api/workspace_routes.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace det;
using namespace det::test;

namespace {

struct workspace_routes : master_api_test {
  int64_t workspace(const std::string& name) {
    auto r = write("POST", "/api/v1/workspaces", json{{"name", name}}.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["workspace"]["id"].get<int64_t>();
  }
  int64_t project(int64_t ws, const std::string& name) {
    auto r =
        write("POST", "/api/v1/workspaces/" + std::to_string(ws) + "/projects",
              json{{"name", name}, {"workspaceId", ws}}.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["project"]["id"].get<int64_t>();
  }
  http::http_response move(int64_t project_id, int64_t dest,
                           std::optional<std::string> token = std::nullopt) {
    return write(
        "POST", "/api/v1/projects/" + std::to_string(project_id) + "/move",
        json{{"projectId", project_id}, {"destinationWorkspaceId", dest}}
            .dump(),
        std::move(token));
  }
  json project_json(int64_t id) {
    return json::parse(
        call("GET", "/api/v1/projects/" + std::to_string(id)).body)["project"];
  }
};

TEST_F(workspace_routes,
       a_project_moves_to_another_workspace_but_not_anywhere) {
  auto a = workspace("a");
  auto b = workspace("b");
  auto p = project(a, "p");
  ASSERT_EQ(move(p, b).status, 200);
  EXPECT_EQ(project_json(p)["workspaceId"], b);
  // Not the default project, not into the default workspace, not into an
  // archived one, not onto a name taken there.
  EXPECT_EQ(move(1, b).status, 400);
  EXPECT_EQ(move(p, 1).status, 400);
  ASSERT_EQ(
      write("POST", "/api/v1/workspaces/" + std::to_string(a) + "/archive")
          .status,
      200);
  auto archived = move(p, a);
  EXPECT_EQ(archived.status, 400);
  EXPECT_NE(archived.body.find("destinationWorkspaceId"), std::string::npos)
      << archived.body;
  ASSERT_EQ(
      write("POST", "/api/v1/workspaces/" + std::to_string(a) + "/unarchive")
          .status,
      200);
  project(a, "p");
  EXPECT_EQ(move(p, a).status, 409);
  EXPECT_EQ(project_json(p)["workspaceId"], b);
  EXPECT_EQ(move(p, 4242).status, 404);
}

TEST_F(workspace_routes, archived_ones_and_the_default_ones_refuse_changes) {
  auto ws = workspace("w");
  auto p = project(ws, "p");
  auto pid = std::to_string(p);
  auto wid = std::to_string(ws);
  // No project in the default workspace.
  EXPECT_EQ(write("POST", "/api/v1/workspaces/1/projects",
                  R"({"name": "nope", "workspaceId": 1})")
                .status,
            400);
  // An archived project is neither edited nor moved.
  ASSERT_EQ(write("POST", "/api/v1/projects/" + pid + "/archive").status, 200);
  EXPECT_EQ(
      write("PATCH", "/api/v1/projects/" + pid, R"({"name": "q"})").status,
      400);
  EXPECT_EQ(move(p, workspace("other")).status, 400);
  ASSERT_EQ(write("POST", "/api/v1/projects/" + pid + "/unarchive").status,
            200);
  // In an archived workspace: the project shows archived, and it is not
  // archived, unarchived or moved; the workspace is not edited.
  ASSERT_EQ(write("POST", "/api/v1/workspaces/" + wid + "/archive").status,
            200);
  EXPECT_EQ(project_json(p)["archived"], true);
  EXPECT_EQ(write("POST", "/api/v1/projects/" + pid + "/archive").status, 400);
  EXPECT_EQ(write("POST", "/api/v1/projects/" + pid + "/unarchive").status,
            400);
  EXPECT_EQ(
      write("PATCH", "/api/v1/workspaces/" + wid, R"({"name": "w2"})").status,
      400);
  EXPECT_EQ(write("POST", "/api/v1/workspaces/" + wid + "/projects",
                  json{{"name", "x"}, {"workspaceId", ws}}.dump())
                .status,
            400);
  ASSERT_EQ(write("POST", "/api/v1/workspaces/" + wid + "/unarchive").status,
            200);
  EXPECT_EQ(project_json(p)["archived"], false);

  // The default workspace and project: 400 for an admin, 403 for anyone
  // else, and nothing changes.
  auto tok = plain_user_token("nora");
  for (const auto& [method, path] :
       std::vector<std::pair<std::string, std::string>>{
           {"POST", "/api/v1/workspaces/1/archive"},
           {"POST", "/api/v1/workspaces/1/unarchive"},
           {"DELETE", "/api/v1/workspaces/1"},
           {"POST", "/api/v1/projects/1/archive"},
           {"POST", "/api/v1/projects/1/unarchive"},
           {"DELETE", "/api/v1/projects/1"}}) {
    EXPECT_EQ(write(method, path).status, 400) << method << " " << path;
    EXPECT_EQ(write(method, path, "", tok).status, 403)
        << method << " " << path;
  }
  EXPECT_EQ(project_json(1)["archived"], false);
}

TEST_F(workspace_routes, lists_sort_by_name_without_case_as_upstream) {
  workspace("_TestPatched");
  auto ws = workspace("_TestWS");
  auto names = [&](const std::string& path, const char* key) {
    std::vector<std::string> out;
    auto listed = json::parse(call("GET", path).body);
    for (const auto& w : listed[key])
      out.push_back(w["name"].get<std::string>());
    return out;
  };
  using list = std::vector<std::string>;
  EXPECT_EQ(names("/api/v1/workspaces", "workspaces"),
            (list{"Uncategorized", "_TestPatched", "_TestWS"}));
  EXPECT_EQ(names("/api/v1/workspaces?sortBy=SORT_BY_NAME", "workspaces"),
            (list{"_TestPatched", "_TestWS", "Uncategorized"}));
  for (const char* p : {"_TestPatchedProject", "_TestPRJ", "_TestEarly"})
    project(ws, p);
  auto of = "/api/v1/workspaces/" + std::to_string(ws) + "/projects";
  EXPECT_EQ(names(of, "projects"),
            (list{"_TestPatchedProject", "_TestPRJ", "_TestEarly"}));
  EXPECT_EQ(names(of + "?orderBy=ORDER_BY_DESC", "projects"),
            (list{"_TestEarly", "_TestPRJ", "_TestPatchedProject"}));
  EXPECT_EQ(names(of + "?sortBy=SORT_BY_NAME", "projects"),
            (list{"_TestEarly", "_TestPatchedProject", "_TestPRJ"}));
  EXPECT_EQ(call("GET", of + "?orderBy=UP").status, 400);
}

TEST_F(workspace_routes, a_workspace_is_pinned_for_its_creator_alone) {
  auto a = workspace("mine");
  auto pinned_names = [&](const std::optional<std::string>& token) {
    std::vector<std::string> out;
    auto r = call("GET", "/api/v1/workspaces?pinned=true", "", token);
    EXPECT_EQ(r.status, 200) << r.body;
    auto listed = json::parse(r.body);
    for (const auto& w : listed["workspaces"])
      out.push_back(w["name"].get<std::string>());
    return out;
  };
  using names = std::vector<std::string>;
  EXPECT_EQ(pinned_names(std::nullopt), names{"mine"});
  auto ws = "/api/v1/workspaces/" + std::to_string(a);
  EXPECT_EQ(json::parse(call("GET", ws).body)["workspace"]["pinned"], true);
  // Another user sees it unpinned, and pins it for themself only.
  auto bob = plain_user_token("bob");
  EXPECT_EQ(pinned_names(bob), names{});
  EXPECT_EQ(json::parse(call("GET", ws, "", bob).body)["workspace"]["pinned"],
            false);
  ASSERT_EQ(write("POST", ws + "/pin", "", bob).status, 200);
  EXPECT_EQ(pinned_names(bob), names{"mine"});
  ASSERT_EQ(write("POST", ws + "/unpin").status, 200);
  EXPECT_EQ(pinned_names(std::nullopt), names{});
  EXPECT_EQ(pinned_names(bob), names{"mine"});
  auto unpinned =
      json::parse(call("GET", "/api/v1/workspaces?pinned=false").body);
  EXPECT_EQ(unpinned["workspaces"].size(), 2u) << unpinned.dump();
  // Refusals name what is wrong.
  auto missing = write("POST", "/api/v1/workspaces/99/pin");
  EXPECT_EQ(missing.status, 404) << missing.body;
  auto bad = call("GET", "/api/v1/workspaces?pinned=maybe");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("pinned:"), std::string::npos) << bad.body;
}

TEST_F(workspace_routes, a_projects_notes_are_added_and_replaced) {
  auto p = project(workspace("w"), "p");
  auto notes = "/api/v1/projects/" + std::to_string(p) + "/notes";
  json hello{{"name", "Hello"}, {"contents", "Hello World"}};
  json hello2{{"name", "Hello 2"}, {"contents", "Hello World"}};
  ASSERT_EQ(write("POST", notes, hello.dump()).status, 200);
  auto r = write("POST", notes, hello2.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["notes"], json::array({hello, hello2}));
  r = write("PUT", notes, json{{"notes", json::array({hello})}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["notes"], json::array({hello}));
  EXPECT_EQ(project_json(p)["notes"], json::array({hello}));
  // Refused naming the field; nothing changes.
  for (const auto& [body, field] : std::vector<std::pair<json, std::string>>{
           {json{{"contents", "x"}}, "note.name"},
           {json{{"name", std::string(300, 'n')}}, "name"},
           {json{{"name", "a"}, {"contents", 7}}, "contents"}}) {
    auto bad = write("POST", notes, body.dump());
    EXPECT_EQ(bad.status, 400) << body.dump();
    EXPECT_NE(bad.body.find(field), std::string::npos) << bad.body;
  }
  auto bad = write("PUT", notes, R"({"notes": "x"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("notes:"), std::string::npos) << bad.body;
  EXPECT_EQ(write("POST", "/api/v1/projects/99/notes", hello.dump()).status,
            404);
  EXPECT_EQ(project_json(p)["notes"], json::array({hello}));
}

TEST_F(workspace_routes,
       the_default_workspace_is_pinned_and_its_project_noted) {
  // Neither was ever saved: each exists before anyone wrote it.
  auto pin = write("POST", "/api/v1/workspaces/1/pin");
  ASSERT_EQ(pin.status, 200) << pin.body;
  auto w = json::parse(call("GET", "/api/v1/workspaces/1").body)["workspace"];
  EXPECT_EQ(w["pinned"], true) << w.dump();
  EXPECT_EQ(w["name"], "Uncategorized");
  json note{{"name", "n"}, {"contents", "c"}};
  auto r = write("POST", "/api/v1/projects/1/notes", note.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(project_json(1)["notes"], json::array({note}));
  EXPECT_EQ(project_json(1)["name"], "Uncategorized");
  // A new workspace still gets a new id.
  EXPECT_EQ(workspace("next"), 2);
}

TEST_F(workspace_routes, every_row_refuses_no_session_and_a_bad_id_by_name) {
  const auto& family = api::workspace_routes();
  expect_401_without_a_session(family);
  // The two rows answered 501 read nothing of the request.
  EXPECT_EQ(expect_400_for_a_bad(
                family, "id", "id: not a valid id",
                {{"POST", "/api/v1/workspaces/{id}/set-resource-quota"}}),
            11u);
  EXPECT_EQ(
      expect_400_for_a_bad(family, "workspaceId", "workspaceId: not a valid id",
                           {{"GET", "/api/v1/roles/workspace/{workspaceId}"}}),
      2u);
}

TEST_F(workspace_routes,
       a_namespace_binding_is_for_admins_once_the_id_is_good) {
  auto bob = plain_user_token("bob");
  for (const char* method : {"POST", "DELETE"}) {
    auto path = std::string{"/api/v1/workspaces/1/namespace-bindings"};
    auto r = call(method, path, "{}", bob);
    EXPECT_EQ(r.status, 403) << method << ": " << r.body;
    // The id is checked first, for anyone.
    auto bad =
        call(method, "/api/v1/workspaces/x/namespace-bindings", "{}", bob);
    EXPECT_EQ(bad.status, 400) << method << ": " << bad.body;
    // An admin gets past the check: this master runs no Kubernetes.
    auto admin = call(method, path, "{}");
    EXPECT_EQ(admin.status, 400) << method << ": " << admin.body;
    EXPECT_NE(admin.body.find("kubernetes"), std::string::npos) << admin.body;
  }
}

TEST_F(workspace_routes, a_project_then_its_workspace_are_deleted_completed) {
  auto ws = workspace("gone");
  auto p = project(ws, "p");
  for (const auto& path : {"/api/v1/projects/" + std::to_string(p),
                           "/api/v1/workspaces/" + std::to_string(ws)}) {
    auto r = write("DELETE", path);
    ASSERT_EQ(r.status, 200) << path << ": " << r.body;
    EXPECT_EQ(json::parse(r.body), (json{{"completed", true}})) << r.body;
    EXPECT_EQ(call("GET", path).status, 404) << path;
  }
}

} // namespace
