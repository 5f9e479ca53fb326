#include "tests/http/support/test_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include <sys/socket.h>
#include <sys/time.h>

#include <stdexcept>

namespace det::http::testing {

namespace net = boost::asio;
namespace ssl = net::ssl;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

namespace {

void set_timeout(tcp::socket& s, std::chrono::seconds t) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(t.count());
  ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(s.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

tcp::endpoint local(uint16_t port) {
  return {net::ip::make_address("127.0.0.1"), port};
}

std::string serialize_request(const std::string& method,
                              const std::string& target,
                              const std::optional<std::string>& body,
                              const header_list& headers) {
  std::string out = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& [k, v] : headers)
    out += k + ": " + v + "\r\n";
  if (body)
    out += "Content-Length: " + std::to_string(body->size()) + "\r\n";
  out += "\r\n";
  if (body)
    out += *body;
  return out;
}

} // namespace

struct test_client::impl {
  net::io_context ioc;
  ssl::context ctx{ssl::context::tls_client};
  tcp::socket sock{ioc};
  std::unique_ptr<ssl::stream<tcp::socket&>> tls;
  std::string buf; // bytes read, not yet consumed

  template <class F> auto with_stream(F&& f) {
    if (tls)
      return f(*tls);
    return f(sock);
  }

  size_t fill() {
    char tmp[16384];
    boost::system::error_code ec;
    size_t n =
        with_stream([&](auto& s) { return s.read_some(net::buffer(tmp), ec); });
    if (ec)
      throw std::runtime_error("read: " + ec.message());
    buf.append(tmp, n);
    return n;
  }

  std::string read_until(const std::string& delim) {
    size_t pos;
    while ((pos = buf.find(delim)) == std::string::npos)
      fill();
    auto out = buf.substr(0, pos);
    buf.erase(0, pos + delim.size());
    return out;
  }

  std::string read_exactly(size_t n) {
    while (buf.size() < n)
      fill();
    auto out = buf.substr(0, n);
    buf.erase(0, n);
    return out;
  }
};

test_client::test_client(uint16_t port, bool tls,
                         std::chrono::seconds read_timeout)
    : impl_(std::make_unique<impl>()) {
  impl_->sock.connect(local(port));
  set_timeout(impl_->sock, read_timeout);
  if (tls) {
    impl_->ctx.set_verify_mode(ssl::verify_none);
    impl_->tls =
        std::make_unique<ssl::stream<tcp::socket&>>(impl_->sock, impl_->ctx);
    impl_->tls->handshake(ssl::stream_base::client);
  }
}

test_client::~test_client() = default;

void test_client::write_raw(const std::string& bytes) {
  impl_->with_stream([&](auto& s) { net::write(s, net::buffer(bytes)); });
}

void test_client::send_request(const std::string& method,
                               const std::string& target,
                               std::optional<std::string> body,
                               const header_list& headers) {
  write_raw(serialize_request(method, target, body, headers));
}

client_response test_client::read_head() {
  client_response r;
  auto head = impl_->read_until("\r\n\r\n");
  auto eol = head.find("\r\n");
  auto status_line = head.substr(0, eol);
  r.status = std::stoi(status_line.substr(9, 3));
  size_t pos = eol == std::string::npos ? head.size() : eol + 2;
  while (pos < head.size()) {
    auto next = head.find("\r\n", pos);
    if (next == std::string::npos)
      next = head.size();
    auto line = head.substr(pos, next - pos);
    auto colon = line.find(':');
    auto value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ')
      value.erase(0, 1);
    r.headers.add(line.substr(0, colon), value);
    pos = next + 2;
  }
  return r;
}

std::optional<std::string> test_client::read_chunk() {
  auto size_line = impl_->read_until("\r\n");
  auto size = std::stoul(size_line, nullptr, 16);
  if (size == 0) {
    impl_->read_until("\r\n");
    return std::nullopt;
  }
  auto data = impl_->read_exactly(size);
  impl_->read_exactly(2);
  return data;
}

std::string test_client::read_body(const client_response& head) {
  if (auto te = head.headers.get("Transfer-Encoding"); te && *te == "chunked") {
    std::string body;
    while (auto c = read_chunk())
      body += *c;
    return body;
  }
  auto len = head.headers.get("Content-Length");
  return impl_->read_exactly(len ? std::stoul(*len) : 0);
}

client_response test_client::request(const std::string& method,
                                     const std::string& target,
                                     std::optional<std::string> body,
                                     const header_list& headers) {
  send_request(method, target, std::move(body), headers);
  auto r = read_head();
  r.body = read_body(r);
  return r;
}

bool test_client::peer_closed() {
  if (!impl_->buf.empty())
    return false;
  char c;
  boost::system::error_code ec;
  impl_->with_stream(
      [&](auto& s) { return s.read_some(net::buffer(&c, 1), ec); });
  if (!ec)
    impl_->buf.push_back(c);
  return ec == net::error::eof || ec == net::error::connection_reset
         || ec == ssl::error::stream_truncated;
}

void test_client::close() {
  boost::system::error_code ec;
  impl_->sock.shutdown(tcp::socket::shutdown_both, ec);
  impl_->sock.close(ec);
}

// -- WebSocket ------------------------------------------------------------

struct ws_test_client::impl {
  net::io_context ioc;
  ssl::context ctx{ssl::context::tls_client};
  std::unique_ptr<websocket::stream<tcp::socket>> plain;
  std::unique_ptr<websocket::stream<ssl::stream<tcp::socket>>> tls;
  uint16_t code = 0;

  template <class F> auto with_ws(F&& f) {
    if (tls)
      return f(*tls);
    return f(*plain);
  }
};

ws_test_client::ws_test_client(uint16_t port, const std::string& target,
                               bool tls, const header_list& headers)
    : impl_(std::make_unique<impl>()) {
  auto decorate = [headers](websocket::request_type& req) {
    for (const auto& [k, v] : headers)
      req.set(k, v);
  };
  if (tls) {
    impl_->ctx.set_verify_mode(ssl::verify_none);
    impl_->tls = std::make_unique<websocket::stream<ssl::stream<tcp::socket>>>(
        impl_->ioc, impl_->ctx);
    auto& sock = beast::get_lowest_layer(*impl_->tls);
    sock.connect(local(port));
    set_timeout(sock, std::chrono::seconds{10});
    impl_->tls->next_layer().handshake(ssl::stream_base::client);
  } else {
    impl_->plain = std::make_unique<websocket::stream<tcp::socket>>(impl_->ioc);
    auto& sock = beast::get_lowest_layer(*impl_->plain);
    sock.connect(local(port));
    set_timeout(sock, std::chrono::seconds{10});
  }
  impl_->with_ws([&](auto& ws) {
    ws.set_option(websocket::stream_base::decorator(decorate));
    ws.handshake("127.0.0.1", target);
  });
}

ws_test_client::~ws_test_client() = default;

void ws_test_client::send(const std::string& text) {
  impl_->with_ws([&](auto& ws) {
    ws.text(true);
    ws.write(net::buffer(text));
  });
}

std::optional<std::string> ws_test_client::read() {
  beast::flat_buffer b;
  boost::system::error_code ec;
  impl_->with_ws([&](auto& ws) { ws.read(b, ec); });
  if (ec == websocket::error::closed) {
    impl_->code = impl_->with_ws([](auto& ws) { return ws.reason().code; });
    return std::nullopt;
  }
  if (ec)
    throw std::runtime_error("ws read: " + ec.message());
  return beast::buffers_to_string(b.data());
}

uint16_t ws_test_client::close_code() const {
  return impl_->code;
}

void ws_test_client::close() {
  boost::system::error_code ec;
  impl_->with_ws(
      [&](auto& ws) { ws.close(websocket::close_code::normal, ec); });
}

int ws_upgrade_status(uint16_t port, const std::string& target,
                      const header_list& headers) {
  test_client c{port};
  header_list h = headers;
  h.emplace_back("Connection", "Upgrade");
  h.emplace_back("Upgrade", "websocket");
  h.emplace_back("Sec-WebSocket-Version", "13");
  h.emplace_back("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==");
  c.send_request("GET", target, std::nullopt, h);
  return c.read_head().status;
}

} // namespace det::http::testing
