// The WebUI's file serving (api/webui_files.hpp) and the experiments
// list's filters and order (api/experiment_query.hpp).

#include "api/experiment_query.hpp"
#include "api/webui_files.hpp"
#include "messages/errc.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <utility>

namespace det {
namespace {

namespace fs = std::filesystem;

struct bundle_dir {
  fs::path root;
  bundle_dir() {
    root = fs::temp_directory_path()
           / ("det-webui-test-" + std::to_string(::getpid()) + "-"
              + std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::create_directories(root / "assets");
  }
  ~bundle_dir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  void write(const std::string& rel, const std::string& text) {
    std::ofstream(root / rel) << text;
  }
};

std::string header(const http::http_response& r, const char* name) {
  return r.headers.get(name).value_or("");
}

TEST(webui_bundle, a_folder_without_index_html_is_refused_naming_it) {
  bundle_dir d;
  auto b = api::webui_bundle::load(d.root.string());
  ASSERT_FALSE(b);
  EXPECT_NE(render(b.error()).find(d.root.string()), std::string::npos);
}

TEST(webui_bundle, serves_its_files_with_cache_headers_and_the_app_for_pages) {
  bundle_dir d;
  d.write("index.html", "<div id=app></div>");
  d.write("assets/index-abc123.js", "console.log(1)");
  d.write(".stamp", "x");
  auto b = api::webui_bundle::load(d.root.string());
  ASSERT_TRUE(b) << render(b.error());
  EXPECT_EQ(b->file_count(), 2u);
  auto js = b->answer("/det/assets/index-abc123.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.body, "console.log(1)");
  EXPECT_EQ(header(js, "Cache-Control"), "public, max-age=31536000, immutable");
  EXPECT_EQ(header(js, "Content-Type"), "text/javascript; charset=utf-8");
  for (auto page :
       {"/det", "/det/experiments", "/det/experiments/7", "/det/trials/3"}) {
    auto r = b->answer(page);
    EXPECT_EQ(r.status, 200) << page;
    EXPECT_EQ(r.body, "<div id=app></div>") << page;
    EXPECT_EQ(header(r, "Cache-Control"), "no-cache") << page;
  }
  EXPECT_EQ(b->answer("/det/.stamp").status, 404);
  EXPECT_EQ(b->answer("/det/assets/index-old.js").status, 404);
  EXPECT_EQ(b->answer("/det/favicon.ico").status, 404);
}

TEST(webui_bundle, the_root_and_det_without_its_slash_redirect_to_det) {
  bundle_dir d;
  d.write("index.html", "<div id=app></div>");
  auto b = api::webui_bundle::load(d.root.string());
  ASSERT_TRUE(b) << render(b.error());
  for (auto [path, target] :
       {std::pair{"/", "/"}, std::pair{"/", ""}, std::pair{"/det", "/det"},
        std::pair{"/det", "/det?next=x"}}) {
    auto r = b->answer(path, target);
    EXPECT_EQ(r.status, 301) << target;
    EXPECT_EQ(header(r, "Location"), "/det/") << target;
  }
  EXPECT_EQ(b->answer("/det", "/det/").status, 200);
}

TEST(webui_bundle, paths_outside_det_are_the_json_404_naming_them) {
  bundle_dir d;
  d.write("index.html", "<div id=app></div>");
  d.write("assets/index-abc123.js", "console.log(1)");
  auto b = api::webui_bundle::load(d.root.string());
  ASSERT_TRUE(b) << render(b.error());
  for (auto path : {"/api/v1/nothing", "/tasks", "/resources/allocation/raw",
                    "/experiments", "/experiments/7", "/assets/index-abc123.js",
                    "/index.html", "/detx", "/det-x/y"}) {
    auto r = b->answer(path);
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_NE(r.body.find("\"NotFound\""), std::string::npos) << path;
    EXPECT_NE(r.body.find(std::string{"no route for GET "} + path),
              std::string::npos)
        << r.body;
    EXPECT_EQ(r.body.find("<div"), std::string::npos) << path;
  }
}

TEST(webui_bundle, no_path_reaches_outside_the_folder) {
  bundle_dir d;
  d.write("index.html", "app");
  fs::path outside =
      d.root.parent_path() / (d.root.filename().string() + "-secret.txt");
  std::ofstream(outside) << "the file's own bytes";
  fs::create_symlink(outside, d.root / "assets" / "link.txt");
  auto b = api::webui_bundle::load(d.root.string());
  ASSERT_TRUE(b);
  auto rel = "/../" + outside.filename().string();
  for (const std::string& p :
       {rel, "/det" + rel, "/det/assets/../../" + outside.filename().string(),
        std::string{"/det/assets/link.txt"},
        std::string{"/det/../../../etc/passwd"},
        std::string{"/det/%2e%2e/%2e%2e/etc/passwd"},
        "/det/" + outside.string()}) {
    auto r = b->answer(p);
    EXPECT_EQ(r.body.find("own bytes"), std::string::npos) << p;
    EXPECT_EQ(r.body.find("root:"), std::string::npos) << p;
  }
  fs::remove(outside);
}

state::experiment_info exp(int64_t id, std::string name, std::string owner,
                           state::experiment_status st, double progress,
                           std::vector<std::string> labels = {}) {
  state::experiment_info e;
  e.id = id;
  e.owner = std::move(owner);
  e.status = st;
  e.progress = progress;
  e.submitted_at_us = 1000 - id;
  e.config = {{"name", std::move(name)}, {"labels", labels}};
  return e;
}

std::vector<int64_t> ids(const std::vector<const state::experiment_info*>& v) {
  std::vector<int64_t> out;
  for (auto e : v)
    out.push_back(e->id);
  return out;
}

TEST(experiment_query, filters_and_orders_the_list) {
  using es = state::experiment_status;
  state::cluster_state s;
  s.experiments[1] = exp(1, "mnist-a", "alice", es::completed, 1.0, {"x"});
  s.experiments[2] = exp(2, "Cifar", "bob", es::active, 0.5, {"x", "y"});
  s.experiments[3] = exp(3, "MNIST-b", "alice", es::paused, 0.2);
  api::experiment_query q;
  EXPECT_EQ(ids(select_experiments(s, q)), (std::vector<int64_t>{1, 2, 3}));
  q.descending = true;
  EXPECT_EQ(ids(select_experiments(s, q)), (std::vector<int64_t>{3, 2, 1}));
  q = {};
  q.sort = api::experiment_query::sort_key::name;
  EXPECT_EQ(ids(select_experiments(s, q)), (std::vector<int64_t>{2, 1, 3}));
  q.sort = api::experiment_query::sort_key::progress;
  EXPECT_EQ(ids(select_experiments(s, q)), (std::vector<int64_t>{3, 2, 1}));
  q.sort = api::experiment_query::sort_key::start_time;
  EXPECT_EQ(ids(select_experiments(s, q)), (std::vector<int64_t>{3, 2, 1}));
  q = {};
  q.name = "mnist";
  EXPECT_EQ(ids(select_experiments(s, q)), (std::vector<int64_t>{1, 3}));
  q.users = {"alice"};
  q.states = {es::paused};
  EXPECT_EQ(ids(select_experiments(s, q)), (std::vector<int64_t>{3}));
  q = {};
  q.labels = {"x"};
  EXPECT_EQ(ids(select_experiments(s, q)), (std::vector<int64_t>{1, 2}));
  q.labels = {"x", "y"};
  EXPECT_EQ(ids(select_experiments(s, q)), (std::vector<int64_t>{2}));
}

TEST(experiment_query, without_filters_the_page_is_the_cli_list) {
  using es = state::experiment_status;
  state::cluster_state s;
  for (int64_t id = 1; id <= 7; ++id)
    s.experiments[id] = exp(id, "e" + std::to_string(id), "u", es::active, 0);
  for (auto p :
       {api::page{0, 0}, api::page{2, 3}, api::page{6, 5}, api::page{9, 1}})
    EXPECT_EQ(api::experiments_query_page(s, {}, p).dump(),
              api::experiments_page(s, {}, p).dump());
}

} // namespace
} // namespace det
