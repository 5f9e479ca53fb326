#include "tests/http/support/fixture.hpp"
#include "tests/http/support/test_client.hpp"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <mutex>

using namespace det::http;
using namespace det::http::testing;
using nlohmann::json;

namespace {

/// Streams handed to the test thread by a handler.
struct stream_box {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<chunk_stream> streams;

  handler open() {
    return [this](http_request, responder res) {
      auto st = res.stream();
      std::lock_guard<std::mutex> guard{mu};
      streams.push_back(st);
      cv.notify_all();
    };
  }
  chunk_stream wait() {
    std::unique_lock<std::mutex> lock{mu};
    cv.wait_for(lock, std::chrono::seconds{10},
                [&] { return !streams.empty(); });
    return streams.empty() ? chunk_stream{} : streams.back();
  }
};

/// Reads chunks until `n` whole lines arrived (chunks may split lines).
std::vector<std::string> read_lines(test_client& c, size_t n) {
  std::vector<std::string> lines;
  std::string pending;
  while (lines.size() < n) {
    auto chunk = c.read_chunk();
    if (!chunk)
      break;
    pending += *chunk;
    size_t pos;
    while ((pos = pending.find('\n')) != std::string::npos) {
      lines.push_back(pending.substr(0, pos));
      pending.erase(0, pos + 1);
    }
  }
  return lines;
}

} // namespace

TEST(streaming, lines_pushed_from_another_thread_arrive_in_order_then_end) {
  constexpr int n = 2000;
  stream_box box;
  router r;
  r.get("/api/v1/trials/{id}/logs", box.open());
  r.get("/ping", [](http_request, responder res) { res.send_json("{}"); });
  auto s = start_server(std::move(r));
  test_client c{s->port()};
  c.send_request("GET", "/api/v1/trials/1/logs?follow=true");
  auto head = c.read_head();
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.headers.get("transfer-encoding"), "chunked");
  auto st = box.wait();
  std::thread producer{[st] {
    for (int i = 0; i < n; ++i)
      if (!st.write_result(json{{"id", i}}.dump()))
        return;
    st.close();
  }};
  auto lines = read_lines(c, n);
  producer.join();
  ASSERT_EQ(lines.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(json::parse(lines[i]), (json{{"result", {{"id", i}}}}));
  EXPECT_FALSE(c.read_chunk().has_value()); // end of body
  // The connection is reusable after the stream.
  EXPECT_EQ(c.request("GET", "/ping").status, 200);
}

TEST(streaming, a_client_that_disconnects_cancels_the_producer) {
  stream_box box;
  router r;
  r.get("/api/v1/trials/{id}/logs", box.open());
  auto s = start_server(std::move(r));
  auto c = std::make_unique<test_client>(s->port());
  c->send_request("GET", "/api/v1/trials/1/logs?follow=true");
  c->read_head();
  auto st = box.wait();
  std::promise<void> cancelled;
  auto fut = cancelled.get_future();
  st.on_cancel([&] { cancelled.set_value(); });
  ASSERT_TRUE(st.write_line("{\"result\":1}"));
  ASSERT_EQ(read_lines(*c, 1).size(), 1u);
  c->close();
  ASSERT_TRUE(ready(fut)); // noticed without the producer writing
  EXPECT_TRUE(st.cancelled());
  EXPECT_FALSE(st.write_line("{\"result\":2}"));
  EXPECT_TRUE(eventually([&] { return s->connection_count() == 0; }));
}

TEST(streaming, a_mid_stream_error_is_one_error_line_then_the_end) {
  router r;
  r.get("/s", [](http_request, responder res) {
    auto st = res.stream();
    (void)st.write_result("{\"a\":1}");
    st.fail(grpc_code::not_found, "trial 3 not found");
  });
  auto s = start_server(std::move(r));
  test_client c{s->port()};
  auto res = c.request("GET", "/s");
  ASSERT_EQ(res.status, 200);
  auto nl = res.body.find('\n');
  EXPECT_EQ(json::parse(res.body.substr(0, nl)),
            (json{{"result", {{"a", 1}}}}));
  auto err = json::parse(res.body.substr(nl + 1));
  EXPECT_EQ(err["error"]["grpcCode"], 5);
  EXPECT_EQ(err["error"]["message"], "trial 3 not found");
  EXPECT_EQ(res.body.back(), '\n');
}

TEST(streaming, dropping_every_stream_handle_ends_the_body) {
  router r;
  r.get("/s", [](http_request, responder res) {
    auto st = res.stream();
    (void)st.write_line("{\"result\":{}}");
  });
  auto s = start_server(std::move(r));
  test_client c{s->port()};
  auto res = c.request("GET", "/s");
  EXPECT_EQ(res.body, "{\"result\":{}}\n");
}

TEST(streaming, a_consumer_that_does_not_read_is_cut_off_at_the_queue_limit) {
  stream_box box;
  router r;
  r.get("/flood", box.open());
  server_config cfg;
  cfg.send_queue_limit = 256 * 1024;
  auto s = start_server(std::move(r), cfg);
  test_client c{s->port()};
  c.send_request("GET", "/flood");
  c.read_head();
  auto st = box.wait();
  std::string line(1024, 'x');
  bool refused = false;
  // Bounded: socket buffers plus the queue limit are far below this.
  for (int i = 0; i < 1'000'000 && !refused; ++i)
    refused = !st.write_line(line);
  EXPECT_TRUE(refused);
  EXPECT_TRUE(st.cancelled());
}

TEST(streaming, stopping_the_server_cancels_open_streams) {
  stream_box box;
  router r;
  r.get("/follow", box.open());
  auto s = start_server(std::move(r));
  test_client c{s->port()};
  c.send_request("GET", "/follow");
  c.read_head();
  auto st = box.wait();
  std::promise<void> cancelled;
  auto fut = cancelled.get_future();
  st.on_cancel([&] { cancelled.set_value(); });
  s->stop(std::chrono::seconds{2});
  EXPECT_TRUE(ready(fut));
  EXPECT_FALSE(st.write_line("{}"));
}
