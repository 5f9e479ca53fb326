#pragma once

// The REST routes over a real master actor (synchronous writer, memory
// event log), a read model fed by it and the API bridge, without a
// network: requests go straight to the router, answers come back through
// captured responders and are awaited with futures. Route tests derive
// from `master_api_test` (tests/api/*_test.cpp).

#include "actors/event_writer.hpp"
#include "actors/experiment_creation_actor.hpp"
#include "actors/master_actor.hpp"
#include "actors/model_def_actor.hpp"
#include "api/api_auth.hpp"
#include "api/auth_crypto.hpp"
#include "api/durable_feed.hpp"
#include "api/master_api.hpp"
#include "api/route_table.hpp"
#include "read/read_model.hpp"
#include "store/memory_event_store.hpp"
#include "tests/support/gunzip.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

// At file scope, as the test files that include this have it: an alias in
// det::test would be shadowed by theirs (clang's -Wshadow).
using json = nlohmann::json;

namespace det::test {

inline const char* good_config = "name: t\nentrypoint: python3 train.py\n"
                                 "searcher:\n  name: single\n  metric: loss\n"
                                 "  max_length:\n    batches: 10\n";

inline std::string create_body(const std::string& config) {
  return json{{"config", config},
              {"modelDefinition", json::array({{{"path", "train.py"},
                                                {"type", 48},
                                                {"content", "cHJpbnQoMSkK"},
                                                {"mode", 420}}})},
              {"activate", true}}
      .dump();
}

/// Stands in for an agent's connection: takes the master's orders.
inline caf::behavior order_sink(caf::event_based_actor*, int) {
  return {
      [](start_atom, const start_order&) {},
      [](start_atom, const task_start_order&) {},
      [](preempt_atom, const std::string&, const std::string&) {},
      [](kill_atom, const std::string&) {},
      [](exitack_atom, const std::string&) {},
  };
}

struct master_api_test : ::testing::Test {
  /// The API's wall clock in microseconds; 0: the real one.
  std::shared_ptr<std::atomic<int64_t>> clock_us =
      std::make_shared<std::atomic<int64_t>>(0);
  memory_event_store log;
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  std::shared_ptr<api::api_context> ctx = std::make_shared<api::api_context>();
  http::router routes;

  master_api_test() {
    auto writer = spawn_event_writer(sys, log, writer_mode::synchronous);
    core_config cc;
    cc.cluster_id = "test";
    pool_configured p;
    p.pool = "default";
    cc.pools.push_back(p);
    // Reads go through a read model fed by the master, as in det-master.
    master_options mo;
    ctx->reads = api::follow_master(mo, {});
    ctx->master = spawn_master(sys, writer, {}, cc, mo);
    ctx->bridge = api::spawn_api_bridge(sys);
    ctx->model_defs =
        spawn_model_def_actor(sys, std::make_unique<memory_model_def_store>());
    ctx->experiment_creation = spawn_experiment_creation_actor(
        sys, ctx->master, ctx->model_defs, ctx->request_timeout);
    ctx->logs = std::make_shared<api::trial_logs>();
    ctx->tokens = std::make_shared<api::session_tokens>("s");
    ctx->preemption_poll = std::chrono::milliseconds{20};
    // The API's wall clock: the real one until a test sets `clock_us`
    // (set, never reassigned: the bridge reads it all the while).
    ctx->wall_clock_us = [c = clock_us] {
      auto at = c->load();
      return at != 0 ? at
                     : std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    };
    ctx->idle_check_interval = std::chrono::milliseconds{20};
    api::add_master_routes(routes, ctx);
    writer_ = writer;
    auto err = api::ensure_default_users(sys, *ctx, "");
    EXPECT_EQ(err, "");
    auto r = call("POST", "/api/v1/auth/login",
                  R"({"username":"admin","password":"","isHashed":true})", "");
    EXPECT_EQ(r.status, 200) << r.body;
    admin_token_ = json::parse(r.body).value("token", "");
  }

  ~master_api_test() override {
    for (auto a : {caf::actor_cast<caf::actor>(ctx->master), ctx->bridge,
                   ctx->model_defs, ctx->experiment_creation,
                   caf::actor_cast<caf::actor>(writer_), sink_})
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }

  /// Sent with every request (besides the token).
  std::map<std::string, std::string> extra_headers;
  /// The peer address of every request.
  std::string remote_address;

  /// Sends as admin unless `token` is given ("" sends none).
  http::http_response call(std::string method, std::string path,
                           std::string body = "",
                           std::optional<std::string> token = std::nullopt,
                           std::string token_header = "Authorization") {
    if (!token)
      token = admin_token_;
    http::http_request req;
    req.method = method;
    auto q = path.find('?');
    req.path = path.substr(0, q);
    for (auto at = q; at != std::string::npos;) {
      auto next = path.find('&', at + 1);
      auto kv =
          path.substr(at + 1, next == std::string::npos ? std::string::npos
                                                        : next - at - 1);
      auto eq = kv.find('=');
      req.query.add(kv.substr(0, eq), kv.substr(eq + 1));
      at = next;
    }
    req.target = path;
    req.body = std::move(body);
    req.remote_address = remote_address;
    if (!token->empty())
      req.headers.set(token_header, "Bearer " + *token);
    for (const auto& [k, v] : extra_headers)
      req.headers.set(k, v);
    auto done = std::make_shared<std::promise<http::http_response>>();
    auto fut = done->get_future();
    routes.dispatch(req,
                    http::responder::capture([done](http::http_response r) {
                      done->set_value(std::move(r));
                    }));
    return fut.get();
  }

  /// GET `path` as admin, expecting 200: the parsed answer.
  json get(const std::string& path) {
    auto r = call("GET", path);
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    return json::parse(r.body);
  }

  /// A write whose position the next requests read at (read-your-writes),
  /// sent as `token` (admin's unless given).
  http::http_response write(const std::string& method, const std::string& path,
                            const std::string& body = "",
                            std::optional<std::string> token = std::nullopt) {
    auto r = call(method, path, body, std::move(token));
    if (auto at = r.headers.get("X-Det-Position"))
      extra_headers["X-Det-Min-Position"] = *at;
    return r;
  }

  /// Creates non-admin user `name` and answers a session token of theirs.
  std::string plain_user_token(const std::string& name) {
    auto made = call(
        "POST", "/api/v1/users",
        json{{"user", {{"username", name}, {"admin", false}, {"active", true}}},
             {"password", api::client_hash("Secret123")},
             {"isHashed", true}}
            .dump());
    EXPECT_EQ(made.status, 200) << made.body;
    auto login = call(
        "POST", "/api/v1/auth/login",
        json{{"username", name}, {"password", "Secret123"}, {"isHashed", false}}
            .dump(),
        "");
    EXPECT_EQ(login.status, 200) << login.body;
    return json::parse(login.body).value("token", "");
  }

  /// Submits an experiment and joins a one-slot agent, so that trial 1
  /// runs as allocation "1.1" (the guard knows only live allocations'
  /// tokens). Waits, bounded, for the pool's pass to place it.
  void run_trial_1(const std::string& config = good_config) {
    auto created = call("POST", "/api/v1/experiments", create_body(config));
    ASSERT_EQ(created.status, 200) << created.body;
    connect_agent("a1", 1);
    EXPECT_TRUE(await_read([](const state::cluster_state& s) {
      return s.allocations.count("1.1") != 0;
    })) << "trial 1 was not placed within 10 s";
  }

  /// Joins agent `id` with `slots` CPU slots to the default pool; its
  /// orders go to a sink.
  void connect_agent(const std::string& id, int32_t slots) {
    if (!sink_)
      sink_ = sys.spawn(order_sink, 0);
    caf::anon_send(ctx->master, connect_atom::value,
                   agent_hello{id, "default", slots, "cpu", "", {}, {}}, sink_);
  }

  /// Whether the read model shows a state that passes `seen` within 10 s.
  /// Asked of the read model, as the guard and the routes do: what the
  /// master did is durable and published there (the master's own state is
  /// ahead). Each try waits for the read's answer; no sleep. Once seen, the
  /// next requests read at least at that position (the model has several
  /// replicas: one that has not applied it yet would answer from before).
  bool await_read(std::function<bool(const state::cluster_state&)> seen) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
    while (std::chrono::steady_clock::now() < deadline) {
      auto done = std::make_shared<std::promise<int64_t>>();
      auto answer = done->get_future();
      ctx->reads->read(
          0, deadline,
          [done, seen](const read::read_view& v) {
            done->set_value(seen(v.state) ? v.position : -1);
          },
          [done](int64_t, const std::string&) { done->set_value(-1); });
      if (auto at = answer.get(); at >= 0) {
        auto& min = extra_headers["X-Det-Min-Position"];
        if (min.empty() || std::stoll(min) < at)
          min = std::to_string(at);
        return true;
      }
      std::this_thread::yield();
    }
    return false;
  }

  /// `pattern` with each {param} replaced by `values`' entry for it, else
  /// by `other`.
  static std::string
  path_of(std::string_view pattern,
          const std::map<std::string, std::string>& values = {},
          const std::string& other = "1") {
    std::string out;
    for (size_t at = 0; at < pattern.size();) {
      auto open = pattern.find('{', at);
      if (open == std::string_view::npos) {
        out += pattern.substr(at);
        break;
      }
      auto close = pattern.find('}', open);
      out += pattern.substr(at, open - at);
      auto v =
          values.find(std::string{pattern.substr(open + 1, close - open - 1)});
      out += v == values.end() ? other : v->second;
      at = close + 1;
    }
    return out;
  }

  /// Every row of `family` but its `anyone` rows answers 401 to a request
  /// without a session, whatever its path holds.
  void expect_401_without_a_session(const api::route_family& family) {
    for (const auto& row : family.rows) {
      if (row.who == api::access::anyone)
        continue;
      auto r =
          call(std::string{row.method}, path_of(row.path), "{}", std::string{});
      EXPECT_EQ(r.status, 401)
          << row.method << " " << row.path << ": " << r.body;
    }
  }

  /// Each admin row of `family` answers 403 to `token` (a non-admin's)
  /// before anything else: the table's check. Answers how many rows.
  size_t expect_403_on_admin_rows(const api::route_family& family,
                                  const std::string& token) {
    size_t checked = 0;
    for (const auto& row : family.rows) {
      if (row.who != api::access::admin)
        continue;
      auto r =
          call(std::string{row.method}, path_of(row.path, {}, "x"), "x", token);
      EXPECT_EQ(r.status, 403)
          << row.method << " " << row.path << ": " << r.body;
      EXPECT_NE(r.body.find("admin only"), std::string::npos) << r.body;
      ++checked;
    }
    return checked;
  }

  /// Each row of `family` whose path has parameter `param` answers 400
  /// with a message that starts with `why` (naming the field) for each of
  /// `bad`, as admin; the rows in `except` (method and pattern) are not
  /// checked. Answers how many rows were checked.
  size_t expect_400_for_a_bad(
      const api::route_family& family, const std::string& param,
      const std::string& why,
      const std::set<std::pair<std::string, std::string>>& except = {},
      const std::vector<std::string>& bad_values = {"x1", "0", "-3"}) {
    size_t checked = 0;
    for (const auto& row : family.rows) {
      if (row.path.find("{" + param + "}") == std::string_view::npos
          || except.count({std::string{row.method}, std::string{row.path}}))
        continue;
      for (const auto& bad : bad_values) {
        auto r = call(std::string{row.method},
                      path_of(row.path, {{param, bad}}), "{}");
        EXPECT_EQ(r.status, 400)
            << row.method << " " << row.path << ": " << r.body;
        auto j = json::parse(r.body, nullptr, false);
        std::string said;
        if (j.is_object() && j.contains("error") && j["error"].is_object())
          said = j["error"].value("error", "");
        EXPECT_EQ(said.rfind(why, 0), 0u)
            << row.method << " " << row.path << ": " << r.body;
      }
      ++checked;
    }
    return checked;
  }

  event_writer_actor writer_;
  std::string admin_token_;
  caf::actor sink_;
};

} // namespace det::test
