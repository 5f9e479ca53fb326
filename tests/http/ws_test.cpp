#include "tests/http/support/fixture.hpp"
#include "tests/http/support/test_client.hpp"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <mutex>

using namespace det::http;
using namespace det::http::testing;
using nlohmann::json;

namespace {

/// Sessions accepted by the server, handed to the test thread.
struct session_box {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<ws_session> sessions;
  std::vector<ws_close_info> closes;

  ws_accept_handler accept(bool echo) {
    return [this, echo](ws_session s) {
      if (echo)
        s.on_message([s](std::string text) { (void)s.send(text); });
      s.on_close([this](ws_close_info info) {
        std::lock_guard<std::mutex> guard{mu};
        closes.push_back(info);
        cv.notify_all();
      });
      std::lock_guard<std::mutex> guard{mu};
      sessions.push_back(s);
      cv.notify_all();
    };
  }
  std::optional<ws_session> wait_session() {
    std::unique_lock<std::mutex> lock{mu};
    cv.wait_for(lock, std::chrono::seconds{10},
                [&] { return !sessions.empty(); });
    if (sessions.empty())
      return std::nullopt;
    return sessions.back();
  }
  std::optional<ws_close_info> wait_close() {
    std::unique_lock<std::mutex> lock{mu};
    cv.wait_for(lock, std::chrono::seconds{10},
                [&] { return !closes.empty(); });
    if (closes.empty())
      return std::nullopt;
    return closes.back();
  }
};

std::unique_ptr<http_server> ws_server(session_box& box, bool echo,
                                       ws_authorizer auth = {},
                                       server_config cfg = {}) {
  router r;
  r.get("/api/v1/ping",
        [](http_request, responder res) { res.send_json("{}"); });
  return start_server(std::move(r), cfg, [&](http_server& s) {
    s.add_websocket("/agents/ws", box.accept(echo), std::move(auth));
  });
}

} // namespace

TEST(websocket, messages_are_echoed_in_order) {
  session_box box;
  auto s = ws_server(box, true);
  ws_test_client c{s->port(), "/agents/ws"};
  for (int i = 0; i < 200; ++i)
    c.send("m" + std::to_string(i));
  for (int i = 0; i < 200; ++i)
    ASSERT_EQ(c.read(), "m" + std::to_string(i));
}

TEST(websocket, the_server_pushes_from_another_thread_in_call_order) {
  session_box box;
  auto s = ws_server(box, false);
  ws_test_client c{s->port(), "/agents/ws"};
  auto session = box.wait_session();
  ASSERT_TRUE(session);
  std::thread pusher{[&] {
    for (int i = 0; i < 1000; ++i)
      ASSERT_TRUE(session->send(json{{"seq", i}}.dump()));
  }};
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(json::parse(*c.read())["seq"], i);
  pusher.join();
}

TEST(websocket, the_upgrade_request_headers_and_query_are_visible) {
  session_box box;
  auto s = ws_server(box, false);
  ws_test_client c{s->port(),
                   "/agents/ws/?id=agent-1&pool=default",
                   false,
                   {{"Authorization", "Bearer tok"}}};
  auto session = box.wait_session();
  ASSERT_TRUE(session);
  EXPECT_EQ(session->request().path, "/agents/ws");
  EXPECT_EQ(session->request().query.get("id"), "agent-1");
  EXPECT_EQ(session->request().headers.get("authorization"), "Bearer tok");
}

TEST(websocket, an_authorizer_can_refuse_the_upgrade_with_an_error) {
  session_box box;
  auto s = ws_server(
      box, false, [](const http_request& req) -> std::optional<http_response> {
        if (req.headers.get("authorization") == "Bearer good")
          return std::nullopt;
        return error_response(grpc_code::unauthenticated, "bad agent token");
      });
  EXPECT_EQ(ws_upgrade_status(s->port(), "/agents/ws"), 401);
  EXPECT_EQ(ws_upgrade_status(s->port(), "/agents/ws",
                              {{"Authorization", "Bearer good"}}),
            101);
}

TEST(websocket, a_plain_get_on_the_websocket_path_is_a_bad_request) {
  session_box box;
  auto s = ws_server(box, false);
  test_client c{s->port()};
  auto res = c.request("GET", "/agents/ws");
  EXPECT_EQ(res.status, 400);
  EXPECT_EQ(json::parse(res.body)["error"]["reason"], "InvalidArgument");
}

TEST(websocket, a_client_close_runs_on_close_and_later_sends_fail) {
  session_box box;
  auto s = ws_server(box, true);
  auto session = [&] {
    ws_test_client c{s->port(), "/agents/ws"};
    c.send("hi");
    EXPECT_EQ(c.read(), "hi");
    auto sess = box.wait_session();
    c.close();
    return sess;
  }();
  auto info = box.wait_close();
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, 1000);
  ASSERT_TRUE(session);
  EXPECT_FALSE(session->is_open());
  EXPECT_FALSE(session->send("late"));
  EXPECT_TRUE(eventually([&] { return s->connection_count() == 0; }));
}

TEST(websocket, the_server_can_close_with_a_code) {
  session_box box;
  auto s = ws_server(box, false);
  ws_test_client c{s->port(), "/agents/ws"};
  auto session = box.wait_session();
  ASSERT_TRUE(session);
  ASSERT_TRUE(session->send("bye"));
  session->close(4001, "agent replaced");
  EXPECT_EQ(c.read(), "bye");
  EXPECT_FALSE(c.read().has_value());
  EXPECT_EQ(c.close_code(), 4001);
  auto info = box.wait_close();
  ASSERT_TRUE(info);
}

// Over the body limit: a closing handshake with 1009 (Boost 1.74's own
// read_message_max failure reset the connection instead), and the message
// never reaches the session.
TEST(websocket, an_oversized_message_is_refused_with_1009_undelivered) {
  session_box box;
  server_config cfg;
  cfg.body_limit = 1000;
  auto s = ws_server(box, true, {}, cfg);
  for (int round = 0; round < 20; ++round) {
    ws_test_client c{s->port(), "/agents/ws"};
    c.send("hi");
    EXPECT_EQ(c.read(), "hi");
    c.send(std::string(1000, 'a')); // at the limit: delivered
    EXPECT_EQ(c.read(), std::string(1000, 'a'));
    c.send(std::string(5000, 'z'));
    EXPECT_EQ(c.read(), std::nullopt);
    EXPECT_EQ(c.close_code(), 1009) << "round " << round;
  }
  auto info = box.wait_close();
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, 1009) << info->reason;
}

TEST(websocket, a_session_handle_outliving_the_server_is_harmless) {
  session_box box;
  std::optional<ws_session> session;
  {
    auto s = ws_server(box, false);
    ws_test_client c{s->port(), "/agents/ws"};
    session = box.wait_session();
    ASSERT_TRUE(session);
    // The client answers the server's close frame while stop() waits.
    auto reader = std::async(std::launch::async, [&] { return c.read(); });
    s->stop(std::chrono::seconds{5});
    ASSERT_TRUE(ready(reader));
    EXPECT_FALSE(reader.get().has_value());
    EXPECT_EQ(c.close_code(), 1001);
  }
  EXPECT_FALSE(session->send("after"));
  session->close();
  ASSERT_TRUE(box.wait_close());
}

TEST(websocket, a_silent_peer_is_dropped_after_the_idle_timeout) {
  session_box box;
  server_config cfg;
  cfg.ws_idle_timeout = std::chrono::milliseconds{300};
  auto s = ws_server(box, false, {}, cfg);
  // A raw upgrade that never answers pings: the server gives up on it.
  test_client raw{s->port()};
  raw.send_request("GET", "/agents/ws", std::nullopt,
                   {{"Connection", "Upgrade"},
                    {"Upgrade", "websocket"},
                    {"Sec-WebSocket-Version", "13"},
                    {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}});
  EXPECT_EQ(raw.read_head().status, 101);
  auto info = box.wait_close();
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, 1006);
}
