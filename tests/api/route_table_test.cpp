// The route tables (api/route_table.hpp): what a row's access makes the
// registration check, and (below) docs/api.md's route table checked
// against every family's rows.
#include "api/master_api.hpp"
#include "api/route_table.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace det;
using namespace det::test;

TEST_F(master_api_test, an_admin_row_answers_403_to_others_before_its_handler) {
  auto bob = plain_user_token("bob");
  auto r = call("POST", "/api/v1/cleanup_logs", "{}", bob);
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(json::parse(r.body)["error"]["error"],
            "user 'bob' does not have permission: admin only")
      << r.body;
  auto a = call("POST", "/api/v1/cleanup_logs", "{}");
  EXPECT_EQ(a.status, 200) << a.body;
  EXPECT_TRUE(json::parse(a.body).contains("removedCount")) << a.body;
}

TEST_F(master_api_test, a_record_by_id_is_400_naming_the_id_or_404_naming_it) {
  // answer_by_id (api/route_util.hpp), the preamble these GETs share.
  for (const auto& [path, what] :
       std::vector<std::pair<std::string, std::string>>{
           {"/api/v1/experiments/", "experiment"},
           {"/api/v1/projects/", "project"},
           {"/api/v1/workspaces/", "workspace"}}) {
    for (const auto& suffix :
         std::vector<std::string>{"", what == "experiment" ? "/trials" : ""}) {
      auto bad = call("GET", path + "x7" + suffix);
      EXPECT_EQ(bad.status, 400) << path << suffix << ": " << bad.body;
      EXPECT_EQ(json::parse(bad.body)["error"]["error"],
                "id: not a valid id: 'x7'")
          << bad.body;
      auto gone = call("GET", path + "4242" + suffix);
      EXPECT_EQ(gone.status, 404) << path << suffix << ": " << gone.body;
      EXPECT_EQ(json::parse(gone.body)["error"]["error"],
                what + " 4242 not found")
          << gone.body;
    }
  }
  auto one = call("GET", "/api/v1/workspaces/1");
  EXPECT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(json::parse(one.body)["workspace"]["name"], "Uncategorized");
}

TEST(route_table, a_prefix_holds_itself_and_the_paths_below_it) {
  EXPECT_TRUE(api::under_prefix("/api/v1/experiments", "/api/v1/experiments"));
  EXPECT_TRUE(
      api::under_prefix("/api/v1/experiments/{id}", "/api/v1/experiments"));
  EXPECT_FALSE(
      api::under_prefix("/api/v1/experimentsx", "/api/v1/experiments"));
  EXPECT_FALSE(api::under_prefix("/api/v1", "/api/v1/experiments"));
}

namespace det {
namespace {

struct doc_row {
  std::string method;
  std::string path;
  std::string served_by;
};

/// The rows "| METHOD | `path` | served by | ..." of docs/api.md's text.
std::vector<doc_row> doc_rows(const std::string& text) {
  static const std::regex row(
      R"(^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| ([^|]*?) *\|)");
  std::vector<doc_row> rows;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, row))
      rows.push_back({m[1], m[2], m[3]});
  return rows;
}

/// The length of the longest of `f`'s prefixes that holds `path`; 0 for
/// none.
size_t held_by(const api::route_family& f, std::string_view path) {
  size_t longest = 0;
  for (auto p : f.prefixes)
    if (api::under_prefix(path, p))
      longest = std::max(longest, p.size());
  return longest;
}

/// What docs/api.md's text gets wrong about the families' tables, one
/// line each; empty when it lists each family exactly. A documented path
/// under prefixes of several families is the one's with the longest
/// (a pool's workspace bindings are the workspace family's, not the
/// pools').
std::vector<std::string>
route_doc_problems(const std::string& text,
                   const std::vector<const api::route_family*>& families) {
  std::vector<std::string> out;
  auto rows = doc_rows(text);
  for (const auto* f : families) {
    auto in_family = [f](std::string_view path) {
      return held_by(*f, path) > 0;
    };
    auto claims = [f, &families](std::string_view path) {
      auto mine = held_by(*f, path);
      return mine > 0
             && std::none_of(families.begin(), families.end(),
                             [mine, path](const api::route_family* g) {
                               return held_by(*g, path) > mine;
                             });
    };
    std::set<std::pair<std::string, std::string>> table;
    for (const auto& r : f->rows) {
      auto name = std::string{r.method} + " " + std::string{r.path};
      table.emplace(r.method, r.path);
      if (!in_family(r.path))
        out.push_back(name + " is in the table of " + std::string{f->file}
                      + " but under none of its prefixes");
      auto d = std::find_if(rows.begin(), rows.end(), [&r](const doc_row& x) {
        return x.method == r.method && x.path == r.path;
      });
      if (d == rows.end())
        out.push_back(name + " (" + std::string{f->file}
                      + ") has no row in docs/api.md");
      else if (d->served_by != f->file)
        out.push_back("docs/api.md says " + d->served_by + " serves " + name
                      + ", not " + std::string{f->file});
    }
    for (const auto& d : rows)
      if (claims(d.path) && table.count({d.method, d.path}) == 0)
        out.push_back("docs/api.md lists " + d.method + " " + d.path
                      + ", which no row of " + std::string{f->file} + " has");
  }
  return out;
}

std::string docs_api_md() {
  std::ifstream in(std::string(DET_SOURCE_DIR) + "/docs/api.md");
  EXPECT_TRUE(in.good()) << "docs/api.md not found";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `text` without the line that holds `needle`.
std::string without_line(const std::string& text, const std::string& needle) {
  auto at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  auto begin = text.rfind('\n', at) + 1;
  auto end = text.find('\n', at);
  return text.substr(0, begin) + text.substr(end + 1);
}

} // namespace
} // namespace det

TEST(route_table, docs_api_md_lists_each_familys_routes_as_its_table_has_them) {
  const auto& families = api::route_families();
  ASSERT_FALSE(families.empty());
  for (const auto& p : route_doc_problems(docs_api_md(), families))
    ADD_FAILURE() << p;
}

TEST(route_table, the_docs_check_fails_on_a_missing_or_an_extra_row) {
  const auto& families = api::route_families();
  auto docs = docs_api_md();
  // A table row docs/api.md does not list.
  auto missing = route_doc_problems(
      without_line(docs, "| GET | `/api/v1/experiments/{id}` |"), families);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0], "GET /api/v1/experiments/{id} (experiment_routes) "
                        "has no row in docs/api.md");
  // A documented route of the family that no table has.
  auto extra = route_doc_problems(
      docs
          + "| POST | `/api/v1/experiments/{id}/fly` | experiment_routes | "
            "|\n",
      families);
  ASSERT_EQ(extra.size(), 1u);
  EXPECT_EQ(extra[0], "docs/api.md lists POST /api/v1/experiments/{id}/fly, "
                      "which no row of experiment_routes has");
  // Under the longer of two families' prefixes: that family's.
  auto deeper = route_doc_problems(
      docs + "| POST | `/api/v1/resource-pools/{pool}/fly` | pool_routes | |\n"
          + "| GET | `/api/v1/resource-pools/{pool}/workspace-bindings/x` | "
            "workspace_routes | |\n",
      families);
  ASSERT_EQ(deeper.size(), 2u);
  EXPECT_EQ(deeper[0], "docs/api.md lists GET "
                       "/api/v1/resource-pools/{pool}/workspace-bindings/x, "
                       "which no row of workspace_routes has");
  EXPECT_EQ(deeper[1], "docs/api.md lists POST "
                       "/api/v1/resource-pools/{pool}/fly, which no row of "
                       "pool_routes has");
  // A row that names another file.
  auto moved = route_doc_problems(
      without_line(docs, "| GET | `/api/v1/experiments` |")
          + "| GET | `/api/v1/experiments` | api_cluster | |\n",
      families);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0], "docs/api.md says api_cluster serves GET "
                      "/api/v1/experiments, not experiment_routes");
}

TEST(route_table, every_row_of_every_family_registers) {
  http::router r;
  for (const auto* f : api::route_families())
    api::add_routes(r, nullptr, f->rows);
  EXPECT_FALSE(r.error()) << render(r.error());
  size_t rows = 0;
  for (const auto* f : api::route_families())
    rows += f->rows.size();
  EXPECT_EQ(r.table().size(), rows);
}

TEST_F(master_api_test, every_route_the_master_registers_is_a_row_of_a_family) {
  std::set<std::pair<std::string, std::string>> rows;
  for (const auto* f : api::route_families())
    for (const auto& r : f->rows)
      rows.emplace(r.method, r.path);
  auto registered = routes.table();
  for (const auto& [method, path] : registered)
    EXPECT_EQ(rows.count({method, path}), 1u)
        << method << " " << path << " is registered outside the tables";
  EXPECT_EQ(registered.size(), rows.size());
}

TEST(route_table, the_public_rows_are_the_info_the_master_and_the_login) {
  std::set<std::pair<std::string, std::string>> open;
  for (const auto* f : api::route_families())
    for (const auto& r : f->rows)
      if (r.who == api::access::anyone)
        open.emplace(r.method, r.path);
  EXPECT_EQ(open, (std::set<std::pair<std::string, std::string>>{
                      {"GET", "/info"},
                      {"GET", "/api/v1/master"},
                      {"POST", "/api/v1/auth/login"}}));
}

// token_check::by_master lets a cached trial token skip the replica's
// check: only for a row whose handler's one effect is a command the
// master checks against the allocation (report_metrics). A row added here
// must be checked so first.
TEST(route_table, only_the_metric_reports_skip_the_replicas_token_check) {
  std::set<std::pair<std::string, std::string>> by_master;
  for (const auto* f : api::route_families())
    for (const auto& r : f->rows)
      if (r.tokens == api::token_check::by_master)
        by_master.emplace(r.method, r.path);
  EXPECT_EQ(by_master, (std::set<std::pair<std::string, std::string>>{
                           {"POST", "/api/v1/trials/{trial_id}/metrics"}}));
}

namespace {

/// A test route: answers who called it ("" without a session).
void whoami(const api::route_ctx&, const http::http_request& req,
            const http::responder& res) {
  res.send_json(json{{"user", req.principal.username}}.dump());
}

} // namespace

TEST_F(master_api_test, the_guard_passes_the_anyone_rows_and_only_them) {
  // A family of our own: the guard's public routes are its `anyone` rows,
  // matched as the router matches (a parameter).
  const api::route_family family{
      "test_routes",
      {"/t"},
      {{"GET", "/t/open/{id}", &whoami, api::access::anyone},
       {"POST", "/t/open/{id}", &whoami, api::access::signed_in},
       {"GET", "/t/closed", &whoami, api::access::signed_in}}};
  routes = http::router{};
  api::add_auth_guard(routes, ctx, {&family});
  api::add_routes(routes, ctx, family.rows);
  auto open = call("GET", "/t/open/7", "", std::string{});
  ASSERT_EQ(open.status, 200) << open.body;
  EXPECT_EQ(json::parse(open.body)["user"], "");
  // The same path by another method is not public; nor is another path.
  EXPECT_EQ(call("POST", "/t/open/7", "{}", std::string{}).status, 401);
  EXPECT_EQ(call("GET", "/t/closed", "", std::string{}).status, 401);
  auto signed_in = call("GET", "/t/closed");
  ASSERT_EQ(signed_in.status, 200) << signed_in.body;
  EXPECT_EQ(json::parse(signed_in.body)["user"], "admin");
  // A session on a public row is not looked at: no principal.
  EXPECT_EQ(json::parse(call("GET", "/t/open/7").body)["user"], "");
}
