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
  auto js = b->answer("/assets/index-abc123.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.body, "console.log(1)");
  EXPECT_EQ(header(js, "Cache-Control"), "public, max-age=31536000, immutable");
  EXPECT_EQ(header(js, "Content-Type"), "text/javascript; charset=utf-8");
  for (auto page : {"", "/", "/experiments", "/experiments/7", "/trials/3"}) {
    auto r = b->answer(page);
    EXPECT_EQ(r.status, 200) << page;
    EXPECT_EQ(r.body, "<div id=app></div>") << page;
    EXPECT_EQ(header(r, "Cache-Control"), "no-cache") << page;
  }
  EXPECT_EQ(b->answer("/.stamp").status, 404);
  EXPECT_EQ(b->answer("/assets/index-old.js").status, 404);
  EXPECT_EQ(b->answer("/favicon.ico").status, 404);
  auto api = b->answer("/api/v1/nothing");
  EXPECT_EQ(api.status, 404);
  EXPECT_NE(api.body.find("\"NotFound\""), std::string::npos);
}

TEST(webui_bundle, no_path_reaches_outside_the_folder) {
  bundle_dir d;
  d.write("index.html", "app");
  fs::path outside =
      d.root.parent_path() / (d.root.filename().string() + "-secret.txt");
  std::ofstream(outside) << "secret";
  fs::create_symlink(outside, d.root / "assets" / "link.txt");
  auto b = api::webui_bundle::load(d.root.string());
  ASSERT_TRUE(b);
  auto rel = "/../" + outside.filename().string();
  for (const std::string& p :
       {rel, "/assets/../../" + outside.filename().string(),
        std::string{"/assets/link.txt"}, std::string{"/../../../etc/passwd"},
        std::string{"/%2e%2e/%2e%2e/etc/passwd"}, "/" + outside.string()}) {
    auto r = b->answer(p);
    EXPECT_EQ(r.body.find("secret"), std::string::npos) << p;
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
