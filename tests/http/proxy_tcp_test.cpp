// TCP over WebSocket through the proxy (proxy_target::tcp, what `det
// shell`'s tunnel uses): a loopback TCP echo service behind a front
// server; binary messages in, the service's bytes out; an oversized
// message closes both sides; a plain HTTP request is refused.

#include "tests/http/support/fixture.hpp"
#include "tests/http/support/test_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

using namespace det::http;
using namespace det::http::testing;

namespace {

/// A TCP service on 127.0.0.1 that echoes what it reads, one connection
/// at a time; counts the bytes it received.
class echo_service {
public:
  echo_service() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 8);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread{[this] { serve(); }};
  }
  ~echo_service() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  size_t received() const { return received_.load(); }

private:
  void serve() {
    while (!stop_) {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0)
        return;
      char buf[4096];
      for (;;) {
        auto n = ::read(c, buf, sizeof buf);
        if (n <= 0)
          break;
        received_ += static_cast<size_t>(n);
        if (::write(c, buf, static_cast<size_t>(n)) != n)
          break;
      }
      ::close(c);
    }
  }

  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> received_{0};
  std::thread thread_;
};

std::unique_ptr<http_server> tcp_front(uint16_t port, proxy_limits limits) {
  return start_server(router{}, {}, [=](http_server& s) {
    s.add_proxy(
        "/proxy/",
        [port](const http_request&, std::function<void(proxy_decision)> done) {
          proxy_target t{"127.0.0.1", port, "shell"};
          t.tcp = true;
          done(t);
        },
        limits);
  });
}

} // namespace

TEST(proxy_tcp, bytes_cross_both_ways_as_binary_messages) {
  echo_service svc;
  auto f = tcp_front(svc.port(), {});
  ws_test_client ws{f->port(), "/proxy/abc/"};
  ws.send("SSH-2.0-test\r\n");
  EXPECT_EQ(ws.read(), "SSH-2.0-test\r\n");
  ws.send("more");
  EXPECT_EQ(ws.read(), "more");
}

TEST(proxy_tcp, an_oversized_message_closes_both_sides_unforwarded) {
  echo_service svc;
  proxy_limits limits;
  limits.max_frame = 1000;
  auto f = tcp_front(svc.port(), limits);
  ws_test_client ws{f->port(), "/proxy/abc/"};
  ws.send("hi");
  EXPECT_EQ(ws.read(), "hi");
  ws.send(std::string(5000, 'z'));
  EXPECT_EQ(ws.read(), std::nullopt);
  EXPECT_EQ(ws.close_code(), 1009);
  EXPECT_EQ(svc.received(), 2u);
}

TEST(proxy_tcp, a_plain_request_is_refused) {
  echo_service svc;
  auto f = tcp_front(svc.port(), {});
  test_client c{f->port()};
  EXPECT_EQ(c.request("GET", "/proxy/abc/").status, 400);
  EXPECT_EQ(svc.received(), 0u);
}
