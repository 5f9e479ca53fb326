// The proxy of http/proxy.hpp over loopback: a front server with a proxy
// resolver in front of a backend server (HTTP routes and a WebSocket).

#include "http/grpc_error.hpp"
#include "http/ws_frames.hpp"
#include "tests/http/support/fixture.hpp"
#include "tests/http/support/test_client.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

using namespace det::http;
using namespace det::http::testing;
using nlohmann::json;

namespace {

/// What the backend saw: WebSocket messages and sessions.
struct backend_box {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> messages;
  std::atomic<int> sessions{0};
};

std::unique_ptr<http_server> backend(backend_box& box) {
  router r;
  auto echo = [](http_request req, responder res) {
    json h = json::object();
    for (const char* k : {"Authorization", "Cookie", "X-Forwarded-For",
                          "X-Real-IP", "Connection", "X-Custom"})
      if (auto v = req.headers.get(k))
        h[k] = *v;
    res.send_json(json{
        {"target", req.target},
        {"method", req.method},
        {"body_size", req.body.size()},
        {"headers",
         h}}.dump());
  };
  r.get("/proxy/{rest*}", echo);
  r.post("/proxy/{rest*}", echo);
  return start_server(std::move(r), {}, [&box](http_server& s) {
    s.add_websocket("/proxy/t1/ws", [&box](ws_session ws) {
      ++box.sessions;
      ws.on_message([ws, &box](std::string text) {
        {
          std::lock_guard<std::mutex> guard{box.mu};
          box.messages.push_back(text);
        }
        box.cv.notify_all();
        (void)ws.send("echo:" + text);
      });
    });
  });
}

/// A front whose resolver lets a request through to `port` when it
/// carries "X-Allow: yes", and refuses it with 404 otherwise.
std::unique_ptr<http_server> front(uint16_t port, proxy_limits limits,
                                   std::atomic<int>* asked = nullptr) {
  router r;
  r.get("/api/v1/ping",
        [](http_request, responder res) { res.send_json("{}"); });
  return start_server(std::move(r), {}, [=](http_server& s) {
    s.add_proxy(
        "/proxy/",
        [port, asked](const http_request& req,
                      std::function<void(proxy_decision)> done) {
          if (asked)
            ++*asked;
          if (req.headers.get("X-Allow").value_or("") != "yes")
            return done(
                error_response(grpc_code::not_found, "service not found: t1"));
          done(proxy_target{"127.0.0.1", port, "t1"});
        },
        limits);
  });
}

const header_list allow{{"X-Allow", "yes"}};

} // namespace

TEST(proxy_http,
     forwards_with_the_path_unchanged_and_the_masters_secrets_removed) {
  backend_box box;
  auto b = backend(box);
  auto f = front(b->port(), {});
  test_client c{f->port()};
  auto res = c.request("POST", "/proxy/t1/api/kernels/?token=abc&x=%2F",
                       std::string(5000, 'b'),
                       {{"X-Allow", "yes"},
                        {"Authorization", "Bearer session-secret"},
                        {"Cookie", "auth=session-secret; _xsrf=keep"},
                        {"X-Custom", "kept"}});
  ASSERT_EQ(res.status, 200) << res.body;
  auto j = json::parse(res.body);
  EXPECT_EQ(j["target"], "/proxy/t1/api/kernels/?token=abc&x=%2F");
  EXPECT_EQ(j["body_size"], 5000);
  auto h = j["headers"];
  EXPECT_FALSE(h.contains("Authorization"));
  EXPECT_EQ(h["Cookie"], "_xsrf=keep");
  EXPECT_EQ(h["X-Custom"], "kept");
  EXPECT_EQ(h["X-Forwarded-For"], "127.0.0.1");
}

TEST(proxy_http, keeps_a_services_own_token) {
  backend_box box;
  auto b = backend(box);
  auto f = front(b->port(), {});
  test_client c{f->port()};
  auto res = c.request("GET", "/proxy/t1/lab", std::nullopt,
                       {{"X-Allow", "yes"}, {"Authorization", "token nb"}});
  ASSERT_EQ(res.status, 200);
  auto j = json::parse(res.body);
  EXPECT_EQ(j["headers"]["Authorization"], "token nb");
}

TEST(proxy_http, a_refusal_is_answered_and_the_backend_never_reached) {
  backend_box box;
  auto b = backend(box);
  auto f = front(b->port(), {});
  test_client c{f->port()};
  auto res = c.request("GET", "/proxy/t1/x");
  EXPECT_EQ(res.status, 404);
  EXPECT_NE(res.body.find("service not found"), std::string::npos);
  // Other paths still reach the router, not the proxy.
  test_client c2{f->port()};
  EXPECT_EQ(c2.request("GET", "/api/v1/ping").status, 200);
}

TEST(proxy_http, a_backend_that_is_gone_is_a_502) {
  uint16_t dead = 0;
  {
    backend_box box;
    auto b = backend(box);
    dead = b->port();
  }
  auto f = front(dead, {});
  test_client c{f->port()};
  auto res = c.request("GET", "/proxy/t1/x", std::nullopt, allow);
  EXPECT_EQ(res.status, 502);
}

TEST(proxy_ws, carries_messages_both_ways) {
  backend_box box;
  auto b = backend(box);
  auto f = front(b->port(), {});
  ws_test_client ws{f->port(), "/proxy/t1/ws", false, allow};
  for (int i = 0; i < 3; ++i) {
    ws.send("m" + std::to_string(i));
    EXPECT_EQ(ws.read(), "echo:m" + std::to_string(i));
  }
}

TEST(proxy_ws, a_service_that_goes_away_mid_traffic_closes_the_client) {
  backend_box box;
  auto b = backend(box);
  auto f = front(b->port(), {});
  ws_test_client ws{f->port(), "/proxy/t1/ws", false, allow};
  ws.send("a");
  EXPECT_EQ(ws.read(), "echo:a");
  b->stop(std::chrono::milliseconds{0}); // the task is killed
  EXPECT_EQ(ws.read(), std::nullopt);
  EXPECT_TRUE(eventually([&] { return f->connection_count() == 0; }));
}

TEST(proxy_ws, an_oversized_frame_closes_the_connection_unforwarded) {
  backend_box box;
  auto b = backend(box);
  proxy_limits limits;
  limits.max_frame = 1024;
  auto f = front(b->port(), limits);
  ws_test_client ws{f->port(), "/proxy/t1/ws", false, allow};
  ws.send("small");
  EXPECT_EQ(ws.read(), "echo:small");
  ws.send(std::string(4096, 'x'));
  EXPECT_EQ(ws.read(), std::nullopt);
  EXPECT_EQ(ws.close_code(), 1009); // message too big
  std::lock_guard<std::mutex> guard{box.mu};
  ASSERT_EQ(box.messages.size(), 1u);
  EXPECT_EQ(box.messages[0], "small");
}

TEST(proxy_ws, connections_per_task_are_bounded) {
  backend_box box;
  auto b = backend(box);
  proxy_limits limits;
  limits.max_conns_per_key = 2;
  auto f = front(b->port(), limits);
  auto first =
      std::make_unique<ws_test_client>(f->port(), "/proxy/t1/ws", false, allow);
  ws_test_client second{f->port(), "/proxy/t1/ws", false, allow};
  EXPECT_EQ(ws_upgrade_status(f->port(), "/proxy/t1/ws", allow), 429);
  // One closes: its place is free again.
  first->close();
  first.reset();
  EXPECT_TRUE(eventually([&] { return f->connection_count() <= 1; }));
  ws_test_client third{f->port(), "/proxy/t1/ws", false, allow};
  third.send("hi");
  EXPECT_EQ(third.read(), "echo:hi");
}

TEST(proxy_ws, an_idle_connection_is_closed) {
  backend_box box;
  auto b = backend(box);
  proxy_limits limits;
  limits.idle_timeout = std::chrono::milliseconds{150};
  auto f = front(b->port(), limits);
  ws_test_client ws{f->port(), "/proxy/t1/ws", false, allow};
  // No byte either way: read() returns once the proxy closes.
  EXPECT_EQ(ws.read(), std::nullopt);
  EXPECT_EQ(ws.close_code(), 1001); // going away
  EXPECT_TRUE(eventually([&] { return f->connection_count() == 0; }));
}

TEST(proxy_ws, a_thousand_idle_connections_are_bounded_and_closed) {
  backend_box box;
  auto b = backend(box);
  // A thousand WebSockets to one task that never send a byte: the first
  // max_conns_per_key are carried, every other is refused at once (an idle
  // period longer than the test: none is closed for idleness meanwhile).
  proxy_limits limits;
  limits.idle_timeout = std::chrono::minutes{5};
  auto f = front(b->port(), limits);
  std::vector<std::unique_ptr<ws_test_client>> held;
  int refused = 0;
  for (int i = 0; i < 1000; ++i) {
    if (held.size() < limits.max_conns_per_key)
      held.push_back(std::make_unique<ws_test_client>(f->port(), "/proxy/t1/ws",
                                                      false, allow));
    else if (ws_upgrade_status(f->port(), "/proxy/t1/ws", allow) == 429)
      ++refused;
  }
  EXPECT_EQ(refused, 1000 - static_cast<int>(limits.max_conns_per_key));
  EXPECT_EQ(box.sessions.load(), static_cast<int>(limits.max_conns_per_key));
  held.clear();
  EXPECT_TRUE(eventually([&] { return f->connection_count() == 0; }));
  EXPECT_TRUE(eventually([&] { return b->connection_count() == 0; }));

  // With a short idle period, as many idle ones are each closed (going
  // away) on both sides, and nothing is left open.
  limits.idle_timeout = std::chrono::milliseconds{300};
  auto g = front(b->port(), limits);
  for (size_t i = 0; i < limits.max_conns_per_key; ++i)
    held.push_back(std::make_unique<ws_test_client>(g->port(), "/proxy/t1/ws",
                                                    false, allow));
  for (auto& ws : held) {
    EXPECT_EQ(ws->read(), std::nullopt);
    EXPECT_EQ(ws->close_code(), 1001);
  }
  EXPECT_TRUE(eventually([&] { return g->connection_count() == 0; }));
  EXPECT_TRUE(eventually([&] { return b->connection_count() == 0; }));
}

TEST(proxy_http, many_unauthenticated_connections_leave_nothing_open) {
  backend_box box;
  auto b = backend(box);
  std::atomic<int> asked{0};
  auto f = front(b->port(), {}, &asked);
  for (int i = 0; i < 200; ++i) {
    test_client c{f->port()};
    EXPECT_EQ(c.request("GET", "/proxy/t1/x").status, 404);
  }
  EXPECT_EQ(asked.load(), 200);
  EXPECT_TRUE(eventually([&] { return f->connection_count() == 0; }));
  EXPECT_EQ(box.sessions.load(), 0);
}

// -- the frame scanner --------------------------------------------------------

namespace {

std::vector<unsigned char> frame_head(uint64_t len, bool masked,
                                      unsigned char op = 0x1) {
  std::vector<unsigned char> h{static_cast<unsigned char>(0x80 | op)};
  unsigned char m = masked ? 0x80 : 0;
  if (len < 126) {
    h.push_back(static_cast<unsigned char>(m | len));
  } else if (len < 65536) {
    h.push_back(m | 126);
    h.push_back(static_cast<unsigned char>(len >> 8));
    h.push_back(static_cast<unsigned char>(len & 0xff));
  } else {
    h.push_back(m | 127);
    for (int i = 7; i >= 0; --i)
      h.push_back(static_cast<unsigned char>((len >> (8 * i)) & 0xff));
  }
  if (masked)
    for (int i = 0; i < 4; ++i)
      h.push_back(0x11);
  return h;
}

} // namespace

TEST(ws_frame_scanner, follows_frames_split_anywhere) {
  std::vector<unsigned char> bytes;
  for (uint64_t len : {5u, 300u, 70000u}) {
    auto h = frame_head(len, true);
    bytes.insert(bytes.end(), h.begin(), h.end());
    bytes.insert(bytes.end(), len, 'x');
  }
  for (size_t piece : {1u, 3u, 7u, 4096u}) {
    ws_frame_scanner s{100000};
    for (size_t i = 0; i < bytes.size(); i += piece)
      ASSERT_TRUE(s.feed(bytes.data() + i, std::min(piece, bytes.size() - i)));
    EXPECT_EQ(s.frames(), 3u);
  }
}

TEST(ws_frame_scanner, refuses_a_frame_over_the_limit_from_its_header) {
  ws_frame_scanner s{1000};
  auto h = frame_head(uint64_t{1} << 40, false);
  EXPECT_FALSE(s.feed(h.data(), h.size()));
  EXPECT_FALSE(s.ok());
  ws_frame_scanner control{1000};
  auto c = frame_head(126, true, 0x9); // a ping over 125 bytes
  EXPECT_FALSE(control.feed(c.data(), c.size()));
}

TEST(response_head_scanner, finds_the_end_of_a_101) {
  std::string text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket"
                     "\r\n\r\n\x81\x02hi";
  response_head_scanner s;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  auto used = s.feed(p, 20);
  EXPECT_EQ(used, 20u);
  EXPECT_FALSE(s.done());
  used = s.feed(p + 20, text.size() - 20);
  EXPECT_TRUE(s.done());
  EXPECT_TRUE(s.switching());
  EXPECT_EQ(20 + used, text.size() - 4);
  response_head_scanner other;
  std::string ok = "HTTP/1.1 200 OK\r\n\r\n";
  other.feed(reinterpret_cast<const unsigned char*>(ok.data()), ok.size());
  EXPECT_TRUE(other.done());
  EXPECT_FALSE(other.switching());
}
