// Readiness (POST /api/v1/allocations/{id}/ready), notebooks' routes and
// who the proxy lets through (api/task_proxy.cpp): the task's own
// allocation token only, the owner's session or the notebook's token;
// another user, a forged token, another task's token are refused; a
// shell's sshd (raw TCP over a WebSocket) alone passes without credentials.

#include "api/idle_watch.hpp"
#include "api/task_proxy.hpp"
#include "tests/api/route_fixture.hpp"

#include <gtest/gtest.h>

#include <future>
#include <string>

using namespace det;
using namespace det::test;

namespace {

struct task_proxy : master_api_test {
  /// A notebook (or command) placed on agent a1: its id.
  std::string placed(const std::string& route, const json& body,
                     std::optional<std::string> token = std::nullopt) {
    auto r = write("POST", route, body.dump(), std::move(token));
    EXPECT_EQ(r.status, 200) << r.body;
    auto j = json::parse(r.body);
    auto key = route == "/api/v1/notebooks" ? "notebook"
               : route == "/api/v1/shells"  ? "shell"
                                            : "command";
    auto id = j[key]["id"].get<std::string>();
    EXPECT_TRUE(await_read([id](const state::cluster_state& s) {
      auto t = s.tasks.find(id);
      return t != s.tasks.end() && state::holds_allocation(t->second);
    }));
    return id;
  }

  http::proxy_decision resolve(const std::string& target,
                               http::header_map headers = {}) {
    http::http_request req;
    req.method = "GET";
    req.target = target;
    auto q = target.find('?');
    req.path = target.substr(0, q);
    if (q != std::string::npos) {
      auto kv = target.substr(q + 1);
      auto eq = kv.find('=');
      req.query.add(kv.substr(0, eq), kv.substr(eq + 1));
    }
    req.headers = std::move(headers);
    auto p = std::make_shared<std::promise<http::proxy_decision>>();
    auto f = p->get_future();
    api::task_proxy_resolver(ctx)(
        req, [p](http::proxy_decision d) { p->set_value(std::move(d)); });
    EXPECT_EQ(f.wait_for(std::chrono::seconds{10}), std::future_status::ready);
    return f.get();
  }

  static http::header_map bearer(const std::string& token) {
    http::header_map h;
    h.set("Authorization", "Bearer " + token);
    return h;
  }

  static int status_of(const http::proxy_decision& d) {
    if (const auto* r = std::get_if<http::http_response>(&d))
      return r->status;
    return 0;
  }
};

TEST_F(task_proxy, only_the_allocations_own_token_reports_it_ready) {
  connect_agent("a1", 2);
  remote_address = "127.0.0.1";
  auto a = placed("/api/v1/notebooks", json::object());
  auto b = placed("/api/v1/commands",
                  {{"config", {{"entrypoint", json::array({"sleep 60"})}}}});
  auto path = "/api/v1/allocations/" + a + ".1/ready";
  auto own = ctx->tokens->token_for(a + ".1");
  auto other = ctx->tokens->token_for(b + ".1");
  EXPECT_EQ(call("POST", path, "{}", other).status, 403);
  EXPECT_EQ(call("POST", path, "{}", plain_user_token("mallory")).status, 403);
  auto forged = own;
  forged[0] = forged[0] == 'f' ? 'e' : 'f'; // never the token itself
  EXPECT_EQ(call("POST", path, "{}", forged).status, 401);
  auto bad = call("POST", path, json{{"proxyPort", 70000}}.dump(), own);
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("proxyPort"), std::string::npos) << bad.body;
  auto task = json::parse(call("GET", "/api/v1/tasks/" + a).body)["task"];
  EXPECT_EQ(task["allocations"][0]["isReady"], false);

  auto r = write("POST", path, json{{"proxyPort", 3000}}.dump(), own);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(await_read([a](const state::cluster_state& s) {
    auto t = s.tasks.find(a);
    return t != s.tasks.end() && t->second.ready;
  }));
  task = json::parse(call("GET", "/api/v1/tasks/" + a).body)["task"];
  EXPECT_EQ(task["allocations"][0]["isReady"], true);
  EXPECT_EQ(task["taskType"], "TASK_TYPE_NOTEBOOK");
}

TEST_F(task_proxy, a_notebooks_address_carries_its_token_for_its_owner_only) {
  connect_agent("a1", 2);
  auto id = placed("/api/v1/notebooks", json::object());
  auto nb =
      json::parse(call("GET", "/api/v1/notebooks/" + id).body)["notebook"];
  auto token = api::notebook_token(*ctx->tokens, id);
  EXPECT_EQ(nb["serviceAddress"], "/proxy/" + id + "/?token=" + token);
  EXPECT_EQ(nb["description"].get<std::string>().rfind("JupyterLab (", 0), 0u);
  auto mallory = plain_user_token("mallory");
  auto listed = call("GET", "/api/v1/notebooks", "", mallory);
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(listed.body.find(token), std::string::npos);
  EXPECT_NE(listed.body.find(id), std::string::npos);
  EXPECT_EQ(
      call("POST", "/api/v1/notebooks/" + id + "/kill", "", mallory).status,
      403);
}

TEST_F(task_proxy, the_proxy_lets_only_the_owner_admins_and_the_token_through) {
  connect_agent("a1", 2);
  remote_address = "127.0.0.1";
  auto mallory = plain_user_token("mallory");
  auto id = placed("/api/v1/notebooks", json::object(), mallory);
  auto other = placed("/api/v1/notebooks", json::object());
  // Not ready yet: nothing to reach.
  EXPECT_EQ(status_of(resolve("/proxy/" + id + "/lab", bearer(mallory))), 404);
  auto own = ctx->tokens->token_for(id + ".1");
  ASSERT_EQ(write("POST", "/api/v1/allocations/" + id + ".1/ready",
                  json{{"proxyPort", 3000}}.dump(), own)
                .status,
            200);
  EXPECT_TRUE(await_read([id](const state::cluster_state& s) {
    auto t = s.tasks.find(id);
    return t != s.tasks.end() && t->second.ready;
  }));

  for (auto h : {bearer(mallory), bearer(admin_token_)}) {
    auto d = resolve("/proxy/" + id + "/lab", h);
    const auto* t = std::get_if<http::proxy_target>(&d);
    ASSERT_NE(t, nullptr) << status_of(d);
    EXPECT_EQ(t->host, "127.0.0.1");
    EXPECT_EQ(t->port, 3000);
    EXPECT_EQ(t->key, id);
  }
  http::header_map cookie;
  cookie.set("Cookie", "x=1; auth=" + mallory);
  EXPECT_TRUE(std::holds_alternative<http::proxy_target>(
      resolve("/proxy/" + id + "/", cookie)));
  auto nb = api::notebook_token(*ctx->tokens, id);
  EXPECT_TRUE(std::holds_alternative<http::proxy_target>(
      resolve("/proxy/" + id + "/api/status?token=" + nb)));

  // Another user: as if there were no such task.
  auto eve = plain_user_token("eve");
  EXPECT_EQ(status_of(resolve("/proxy/" + id + "/lab", bearer(eve))), 404);
  // Forged session, no credentials, another notebook's token, a task's
  // allocation token (not a credential for the proxy).
  EXPECT_EQ(status_of(resolve("/proxy/" + id + "/lab", bearer("f" + mallory))),
            303);
  EXPECT_EQ(status_of(resolve("/proxy/" + id + "/lab")), 303);
  auto theirs = api::notebook_token(*ctx->tokens, other);
  EXPECT_EQ(status_of(resolve("/proxy/" + id + "/lab?token=" + theirs)), 303);
  EXPECT_EQ(status_of(resolve("/proxy/" + id + "/lab", bearer(own))), 303);
  EXPECT_EQ(status_of(resolve("/proxy/not-a-task!/x", bearer(mallory))), 404);
}

TEST_F(task_proxy,
       declared_proxy_ports_are_reached_on_the_agent_while_running) {
  connect_agent("a1", 2);
  ctx->agent_addresses->set("a1", "127.0.0.9");
  auto mallory = plain_user_token("mallory");
  json cfg{
      {"config",
       {{"entrypoint", "python3 -m http.server 8765"},
        {"environment",
         {{"proxy_ports",
           json::array({{{"proxy_port", 8765}},
                        {{"proxy_port", 8766}, {"unauthenticated", true}},
                        {{"proxy_port", 8767}, {"proxy_tcp", true}}})}}}}}};
  auto id = placed("/api/v1/commands", cfg, mallory);
  auto at = [&](int port) {
    return "/proxy/" + id + ":" + std::to_string(port) + "/x";
  };
  // Placed, not running yet: nothing to reach.
  EXPECT_EQ(status_of(resolve(at(8765), bearer(mallory))), 404);
  caf::anon_send(ctx->master, command{allocation_running_report{id + ".1"}});
  ASSERT_TRUE(await_read([id](const state::cluster_state& s) {
    return s.tasks.at(id).state == state::task_state::running;
  }));
  for (auto h : {bearer(mallory), bearer(admin_token_)}) {
    auto d = resolve(at(8765), h);
    const auto* t = std::get_if<http::proxy_target>(&d);
    ASSERT_NE(t, nullptr) << status_of(d);
    EXPECT_EQ(t->host, "127.0.0.9"); // its agent's address
    EXPECT_EQ(t->port, 8765);
    EXPECT_EQ(t->key, id);
    EXPECT_FALSE(t->tcp);
  }
  auto tcp = resolve(at(8767), bearer(mallory));
  ASSERT_TRUE(std::holds_alternative<http::proxy_target>(tcp));
  EXPECT_TRUE(std::get<http::proxy_target>(tcp).tcp);
  // Declared unauthenticated: anyone; the others: the owner and admins.
  EXPECT_TRUE(std::holds_alternative<http::proxy_target>(resolve(at(8766))));
  EXPECT_EQ(status_of(resolve(at(8765))), 303);
  auto eve = plain_user_token("eve");
  EXPECT_EQ(status_of(resolve(at(8765), bearer(eve))), 404);
  // Undeclared ports, and ports that are no ports.
  EXPECT_EQ(status_of(resolve(at(9999), bearer(mallory))), 404);
  for (const std::string bad : {":0", ":65536", ":", ":80a", ":123456"})
    EXPECT_EQ(status_of(resolve("/proxy/" + id + bad + "/", bearer(mallory))),
              404)
        << bad;
  // det task list's Ports.
  auto ports =
      get("/api/v1/tasks")["allocationIdToSummary"][id + ".1"]["proxyPorts"];
  ASSERT_EQ(ports.size(), 3u) << ports.dump();
  EXPECT_EQ(ports[1]["serviceId"], id + ":8766");
  EXPECT_EQ(ports[1]["unauthenticated"], true);
  EXPECT_EQ(ports[2]["proxyTcp"], true);
  // A task on an agent whose address is not known (two slots: only a2
  // has them free): not reachable.
  connect_agent("a2", 2);
  auto two = cfg;
  two["config"]["resources"] = {{"slots", 2}};
  auto other = placed("/api/v1/commands", two, mallory);
  caf::anon_send(ctx->master, command{allocation_running_report{other + ".1"}});
  ASSERT_TRUE(await_read([other](const state::cluster_state& s) {
    const auto& t = s.tasks.at(other);
    return t.state == state::task_state::running && t.agent_id == "a2";
  }));
  EXPECT_EQ(status_of(resolve("/proxy/" + other + ":8765/", bearer(mallory))),
            404);
}

TEST_F(task_proxy, bad_proxy_ports_are_refused_naming_the_field) {
  for (const auto& [ports, field] : std::vector<std::pair<json, std::string>>{
           {json::array({{{"proxy_port", 0}}}), "proxy_ports[0].proxy_port"},
           {json::array({{{"proxy_port", "80"}}}), "proxy_ports[0].proxy_port"},
           {json::array({{{"proxy_port", 80}}, {{"proxy_port", 80}}}),
            "listed twice"},
           {json::array({{{"proxy_port", 80}, {"proxy_tcp", "yes"}}}),
            "proxy_ports[0].proxy_tcp"},
           {json::array({{{"proxy_port", 80}, {"magic", 1}}}), "unknown field"},
           {json{{"proxy_port", 80}}, "environment.proxy_ports"}}) {
    auto r = call("POST", "/api/v1/commands",
                  json{{"config",
                        {{"entrypoint", "true"},
                         {"environment", {{"proxy_ports", ports}}}}}}
                      .dump());
    EXPECT_EQ(r.status, 400) << ports.dump();
    EXPECT_NE(r.body.find(field), std::string::npos) << r.body;
  }
  // An experiment's too.
  auto r = call("POST", "/api/v1/experiments",
                create_body(std::string{good_config}
                            + "environment:\n  proxy_ports:\n"
                              "    - proxy_port: 70000\n"));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("environment.proxy_ports[0].proxy_port"),
            std::string::npos)
      << r.body;
}

TEST_F(task_proxy, a_shell_is_reached_by_a_websocket_without_credentials) {
  connect_agent("a1", 3);
  remote_address = "127.0.0.1";
  auto mallory = plain_user_token("mallory");
  auto shell = placed("/api/v1/shells", json::object(), mallory);
  auto nb = placed("/api/v1/notebooks", json::object(), mallory);
  http::header_map upgrade;
  upgrade.set("Upgrade", "websocket");
  upgrade.set("Connection", "Upgrade");
  // Not ready yet: an anonymous upgrade learns nothing (401 as for any).
  EXPECT_EQ(status_of(resolve("/proxy/" + shell + "/", upgrade)), 401);
  for (const auto& id : {shell, nb})
    ASSERT_EQ(write("POST", "/api/v1/allocations/" + id + ".1/ready",
                    json{{"proxyPort", 2222}}.dump(),
                    ctx->tokens->token_for(id + ".1"))
                  .status,
              200);
  EXPECT_TRUE(await_read([shell, nb](const state::cluster_state& s) {
    return s.tasks.at(shell).ready && s.tasks.at(nb).ready;
  }));

  auto d = resolve("/proxy/" + shell + "/", upgrade);
  const auto* t = std::get_if<http::proxy_target>(&d);
  ASSERT_NE(t, nullptr) << status_of(d);
  EXPECT_TRUE(t->tcp);
  EXPECT_EQ(t->port, 2222);
  EXPECT_EQ(t->key, shell);
  // Another user's session or a forged one changes nothing for a shell.
  auto eve = plain_user_token("eve");
  auto with_eve = upgrade;
  with_eve.set("Authorization", "Bearer " + eve);
  d = resolve("/proxy/" + shell + "/", with_eve);
  ASSERT_TRUE(std::holds_alternative<http::proxy_target>(d));
  EXPECT_TRUE(std::get<http::proxy_target>(d).tcp);

  // Nothing else passes that way: the notebook, an unknown task, a plain
  // request to the shell.
  EXPECT_EQ(status_of(resolve("/proxy/" + nb + "/api/kernels", upgrade)), 401);
  EXPECT_EQ(status_of(resolve("/proxy/" + nb + "/", with_eve)), 404);
  const std::string unknown = "00000000-0000-4000-8000-000000000000";
  EXPECT_EQ(status_of(resolve("/proxy/" + unknown + "/", upgrade)), 401);
  EXPECT_EQ(status_of(resolve("/proxy/" + shell + "/")), 303);
  // The notebook's owner reaches it as HTTP/WebSocket, never as raw TCP.
  auto own = upgrade;
  own.set("Authorization", "Bearer " + mallory);
  d = resolve("/proxy/" + nb + "/api/kernels", own);
  ASSERT_TRUE(std::holds_alternative<http::proxy_target>(d));
  EXPECT_FALSE(std::get<http::proxy_target>(d).tcp);
}

TEST_F(task_proxy,
       a_notebook_idle_past_its_timeout_is_killed_activity_puts_it_off) {
  connect_agent("a1", 3);
  remote_address = "127.0.0.1";
  json timed{{"config", {{"idle_timeout", "10m"}}}};
  auto idle = placed("/api/v1/notebooks", timed);
  auto busy = placed("/api/v1/notebooks", timed);
  auto never = placed("/api/v1/notebooks", json::object());
  for (const auto& id : {idle, busy, never})
    caf::anon_send(ctx->master, command{allocation_running_report{id + ".1"}});
  auto state_of = [this](const std::string& id) {
    state::task_state out{};
    EXPECT_TRUE(await_read([&](const state::cluster_state& s) {
      out = s.tasks.at(id).state;
      return true;
    }));
    return out;
  };
  ASSERT_TRUE(await_read([&](const state::cluster_state& s) {
    for (const auto& id : {idle, busy, never})
      if (s.tasks.at(id).state != state::task_state::running)
        return false;
    return true;
  }));
  constexpr int64_t minute_us = 60'000'000;
  auto start = ctx->wall_clock_us();
  // Nine minutes on: none is due. One reports Jupyter busy (activity), the
  // other idle (no activity).
  clock_us->store(start + 9 * minute_us);
  auto report = [this](const std::string& id, bool is_idle) {
    return call("PUT", "/api/v1/notebooks/" + id + "/report_idle",
                json{{"idle", is_idle}}.dump())
        .status;
  };
  ASSERT_EQ(report(busy, false), 200);
  ASSERT_EQ(report(idle, true), 200);
  // Eleven minutes on: only the idle one is past its timeout.
  clock_us->store(start + 11 * minute_us);
  ASSERT_TRUE(await_read([&](const state::cluster_state& s) {
    return s.tasks.at(idle).state == state::task_state::terminating;
  }));
  EXPECT_TRUE(await_read([&](const state::cluster_state& s) {
    return s.tasks.at(idle).kill_reason
           == "idle for more than 10m: service is inactive";
  }));
  EXPECT_EQ(state_of(busy), state::task_state::running);
  EXPECT_EQ(state_of(never), state::task_state::running);
  // A request through the proxy is activity too.
  ASSERT_EQ(write("POST", "/api/v1/allocations/" + busy + ".1/ready",
                  json{{"proxyPort", 3000}}.dump(),
                  ctx->tokens->token_for(busy + ".1"))
                .status,
            200);
  ASSERT_TRUE(await_read(
      [&](const state::cluster_state& s) { return s.tasks.at(busy).ready; }));
  clock_us->store(start + 18 * minute_us);
  ASSERT_TRUE(std::holds_alternative<http::proxy_target>(
      resolve("/proxy/" + busy + "/lab", bearer(admin_token_))));
  clock_us->store(start + 27 * minute_us);
  EXPECT_EQ(state_of(busy), state::task_state::running);
  clock_us->store(start + 29 * minute_us);
  EXPECT_TRUE(await_read([&](const state::cluster_state& s) {
    return s.tasks.at(busy).state == state::task_state::terminating;
  }));
}

TEST_F(task_proxy, idle_reports_and_timeouts_are_checked_naming_the_field) {
  connect_agent("a1", 1);
  auto mallory = plain_user_token("mallory");
  auto id = placed("/api/v1/notebooks", json::object(), mallory);
  auto path = "/api/v1/notebooks/" + id + "/report_idle";
  EXPECT_EQ(call("PUT", path, json{{"idle", false}}.dump(), mallory).status,
            200);
  auto r = call("PUT", path, json{{"idle", "no"}}.dump(), mallory);
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("idle: expected true or false"), std::string::npos);
  r = call("PUT", path, json{{"busy", true}}.dump(), mallory);
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("busy"), std::string::npos) << r.body;
  EXPECT_EQ(
      call("PUT", path, json{{"idle", false}}.dump(), plain_user_token("eve"))
          .status,
      403);
  r = call("PUT",
           "/api/v1/notebooks/00000000-0000-4000-8000-000000000000/report_idle",
           json{{"idle", false}}.dump());
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("notebook not found"), std::string::npos) << r.body;
  for (const auto& [cfg, field] : std::vector<std::pair<json, std::string>>{
           {{{"idle_timeout", "soon"}}, "config.idle_timeout"},
           {{{"idle_timeout", 30}}, "config.idle_timeout"},
           {{{"idle_timeout", "0s"}}, "config.idle_timeout"},
           {{{"notebook_idle_type", "sometimes"}},
            "config.notebook_idle_type"}}) {
    r = call("POST", "/api/v1/notebooks", json{{"config", cfg}}.dump());
    EXPECT_EQ(r.status, 400) << cfg.dump();
    EXPECT_NE(r.body.find(field), std::string::npos) << r.body;
  }
  // master.yaml's notebook_timeout is a notebook's default, not a
  // command's; a notebook's own idle_timeout wins. (Set while no request
  // is under way: only the routes read it.)
  auto cfg = std::make_shared<conf::master_config>(*ctx->config);
  cfg->notebook_timeout_s = 600;
  ctx->config = cfg;
  auto idle_timeout = [this](const std::string& route, const json& config) {
    auto launched = call("POST", route, json{{"config", config}}.dump());
    EXPECT_EQ(launched.status, 200) << launched.body;
    return json::parse(launched.body)["config"].value("idle_timeout", json());
  };
  EXPECT_EQ(idle_timeout("/api/v1/notebooks", json::object()), "600s");
  EXPECT_EQ(idle_timeout("/api/v1/notebooks", {{"idle_timeout", "1h"}}), "1h");
  EXPECT_EQ(idle_timeout("/api/v1/commands", json::object()), json());
  // A TensorBoard's default is tensorboard_timeout (300 s); its own wins.
  auto exp = call("POST", "/api/v1/experiments", create_body(good_config));
  ASSERT_EQ(exp.status, 200) << exp.body;
  auto tb = [&](const json& config) {
    auto r = call("POST", "/api/v1/tensorboards",
                  json{{"config", config}, {"experimentIds", {1}}}.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body)["config"].value("idle_timeout", json());
  };
  EXPECT_EQ(tb(json::object()), "300s");
  EXPECT_EQ(tb({{"idle_timeout", "2m"}}), "2m");
}

TEST(idle_watch, a_restarted_master_counts_from_its_first_look_and_asks_once) {
  state::cluster_state s;
  state::task_info t;
  t.id = "0123abcd-0000-4000-8000-000000000000";
  t.task_type = "NOTEBOOK";
  t.allocation_id = t.id + ".1";
  t.state = state::task_state::running;
  t.running_at_us = 1'000'000;
  t.config = {{"idle_timeout", "1m"}};
  s.tasks[t.id] = t;
  api::idle_watch w;
  constexpr int64_t minute_us = 60'000'000;
  const int64_t first = 100 * minute_us; // long after it started
  EXPECT_TRUE(w.due(s, first).empty());
  EXPECT_TRUE(w.due(s, first + minute_us).empty());
  auto due = w.due(s, first + minute_us + 1);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].task_id, t.id);
  EXPECT_TRUE(w.due(s, first + 5 * minute_us).empty()); // asked once
  // A command, or a notebook without a timeout, never is.
  s.tasks[t.id].config = json::object();
  s.tasks[t.id].state = state::task_state::terminated;
  EXPECT_TRUE(w.due(s, first + 9 * minute_us).empty());
  s.tasks[t.id].state = state::task_state::running;
  s.tasks[t.id].config = {{"idle_timeout", "1m"}};
  s.tasks[t.id].task_type = "COMMAND";
  EXPECT_TRUE(w.due(s, first + 9 * minute_us).empty());
  // A TensorBoard times out as a notebook does; activity puts it off.
  s.tasks[t.id].task_type = "TENSORBOARD";
  w.record(t.id, first + 9 * minute_us);
  EXPECT_TRUE(w.due(s, first + 10 * minute_us).empty());
  EXPECT_EQ(w.due(s, first + 10 * minute_us + 1).size(), 1u);
  EXPECT_EQ(api::idle_timeout_us(json{{"idle_timeout", "1h30m"}}),
            90 * minute_us);
  EXPECT_EQ(api::idle_timeout_us(json{{"idle_timeout", nullptr}}), 0);
}

TEST(task_proxy_paths, task_ids_and_cookies_are_read_strictly) {
  EXPECT_EQ(api::proxy_task_id("/proxy/abc-1/lab/x"), "abc-1");
  EXPECT_EQ(api::proxy_task_id("/proxy/abc"), "abc");
  EXPECT_EQ(api::proxy_task_id("/proxy/"), std::nullopt);
  EXPECT_EQ(api::proxy_task_id("/proxy/ABC/"), std::nullopt);
  EXPECT_EQ(api::proxy_task_id("/proxy/../etc"), std::nullopt);
  EXPECT_EQ(api::cookie_value("a=1; auth=tok; b=2", "auth"), "tok");
  EXPECT_EQ(api::cookie_value("xauth=1", "auth"), "");
  EXPECT_EQ(api::cookie_value("", "auth"), "");
}

} // namespace
