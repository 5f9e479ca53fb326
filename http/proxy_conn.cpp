// One proxied connection (http/proxy.hpp): the client's stream and a TCP
// connection to the backend, on the client's strand. Each direction is a
// loop of one read into its fixed buffer and one write of what was read,
// so at most `buffer` bytes per direction are held: a slow reader stalls
// the loop, and TCP pushes back on the sender.

#include "http/detail/server_core.hpp"

#include "http/grpc_error.hpp"
#include "http/wire_format.hpp"
#include "http/ws_frames.hpp"
#include "util/text.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <type_traits>
#include <vector>

namespace det::http::detail {

namespace {

bool hop_by_hop(std::string_view name) {
  for (std::string_view h :
       {"connection", "keep-alive", "proxy-connection", "upgrade", "te",
        "trailer", "transfer-encoding", "content-length", "x-real-ip",
        "x-forwarded-for", "x-forwarded-proto", "proxy-authorization"})
    if (util::iequals(name, h))
      return true;
  return false;
}

/// The Cookie header without the master's `auth` cookie.
std::string without_auth_cookie(std::string_view value) {
  std::string out;
  size_t i = 0;
  while (i <= value.size()) {
    auto semi = value.find(';', i);
    if (semi == std::string_view::npos)
      semi = value.size();
    auto part = value.substr(i, semi - i);
    while (!part.empty() && part.front() == ' ')
      part.remove_prefix(1);
    auto eq = part.find('=');
    auto name = part.substr(0, eq);
    if (!part.empty() && name != "auth") {
      if (!out.empty())
        out += "; ";
      out += part;
    }
    i = semi + 1;
  }
  return out;
}

} // namespace

std::string proxy_request_bytes(const raw_request& msg,
                                const std::string& remote_address, bool tls,
                                bool websocket) {
  std::string out;
  out += std::string{msg.method_string()} + " " + std::string{msg.target()}
         + " HTTP/1.1\r\n";
  for (const auto& f : msg) {
    auto name = f.name_string();
    auto value = f.value();
    if (hop_by_hop(name))
      continue;
    if (util::iequals(name, "authorization")
        && util::iequals(value.substr(0, 7), "bearer "))
      continue;
    std::string v{value};
    if (util::iequals(name, "cookie")) {
      v = without_auth_cookie(value);
      if (v.empty())
        continue;
    }
    out += std::string{name} + ": " + v + "\r\n";
  }
  if (websocket)
    out += "Connection: Upgrade\r\nUpgrade: websocket\r\n";
  else
    out += "Connection: close\r\n";
  if (!msg.body().empty() || msg.has_content_length())
    out += "Content-Length: " + std::to_string(msg.body().size()) + "\r\n";
  out += "X-Real-IP: " + remote_address + "\r\n";
  out += "X-Forwarded-For: " + remote_address + "\r\n";
  out += std::string{"X-Forwarded-Proto: "} + (tls ? "https" : "http") + "\r\n";
  out += "\r\n";
  out += msg.body();
  return out;
}

namespace {

template <class Stream> class proxy_conn final : public conn_base {
public:
  static constexpr bool is_tls = std::is_same_v<Stream, tls_stream>;

  proxy_conn(std::shared_ptr<server_shared> shared, Stream client,
             std::string first, std::string early, bool websocket,
             proxy_target target)
      : shared_(std::move(shared)), client_(std::move(client)),
        backend_(client_.get_executor()), idle_(client_.get_executor()),
        first_(std::move(first)), early_(std::move(early)),
        websocket_(websocket), target_(std::move(target)),
        c2b_(limits().buffer), b2c_(limits().buffer),
        c2b_frames_(limits().max_frame), b2c_frames_(limits().max_frame) {}

  ~proxy_conn() override { release(); }

  void run() {
    shared_->add(shared_from_this());
    net::dispatch(client_.get_executor(), [self = self()] { self->connect(); });
  }

  void begin_shutdown() override { force_close(); }

  void force_close() override {
    net::dispatch(client_.get_executor(),
                  [self = self()] { self->close_all(); });
  }

private:
  std::shared_ptr<proxy_conn> self() {
    return std::static_pointer_cast<proxy_conn>(shared_from_this());
  }
  const proxy_limits& limits() const { return shared_->proxy->limits; }
  beast::tcp_stream& client_tcp() { return beast::get_lowest_layer(client_); }

  void release() {
    if (!counted_)
      return;
    counted_ = false;
    shared_->proxy_release(target_.key);
  }

  void connect() {
    if (websocket_
        && !c2b_frames_.feed(
            reinterpret_cast<const unsigned char*>(early_.data()),
            early_.size()))
      return close_all();
    first_ += early_;
    early_.clear();
    beast::error_code ec;
    auto addr = net::ip::make_address(target_.host, ec);
    if (ec)
      return answer_error("the service's address is not valid");
    backend_.expires_after(limits().connect_timeout);
    backend_.async_connect(tcp::endpoint{addr, target_.port},
                           [self = self()](beast::error_code cec) {
                             if (cec)
                               return self->answer_error(
                                   "the service does not answer");
                             self->backend_.expires_never();
                             self->on_connected();
                           });
  }

  /// 502 to the client, then close.
  void answer_error(const std::string& why) {
    auto res = error_response(grpc_code::unavailable, why);
    res.status = 502;
    out_ = serialize_response(res, false, shared_->cfg.server_name);
    touch();
    net::async_write(
        client_, net::buffer(out_),
        [self = self()](beast::error_code, size_t) { self->close_all(); });
  }

  void on_connected() {
    touch();
    arm_idle();
    net::async_write(backend_, net::buffer(first_),
                     [self = self()](beast::error_code ec, size_t) {
                       self->first_.clear();
                       self->first_.shrink_to_fit();
                       if (ec)
                         return self->close_all();
                       self->touch();
                       self->read_client();
                       self->read_backend();
                     });
  }

  // -- client -> backend ----------------------------------------------

  void read_client() {
    if (closed_)
      return;
    c2b_reading_ = true;
    client_.async_read_some(net::buffer(c2b_),
                            [self = self()](beast::error_code ec, size_t n) {
                              self->on_client(ec, n);
                            });
  }

  void on_client(beast::error_code ec, size_t n) {
    c2b_reading_ = false;
    if (closed_)
      return;
    if (stopping_)
      return ec ? close_all() : drain();
    if (ec) {
      if (ec != net::error::eof || is_tls)
        return close_all();
      // The client is done sending; its answer may still come.
      beast::error_code ignored;
      backend_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      return;
    }
    touch();
    if (websocket_
        && !c2b_frames_.feed(
            reinterpret_cast<const unsigned char*>(c2b_.data()), n))
      return close_ws(1009);
    net::async_write(backend_, net::buffer(c2b_.data(), n),
                     [self = self()](beast::error_code wec, size_t) {
                       if (wec)
                         return self->close_all();
                       self->touch();
                       self->read_client();
                     });
  }

  // -- backend -> client ----------------------------------------------

  void read_backend() {
    if (closed_)
      return;
    backend_.async_read_some(net::buffer(b2c_),
                             [self = self()](beast::error_code ec, size_t n) {
                               self->on_backend(ec, n);
                             });
  }

  void on_backend(beast::error_code ec, size_t n) {
    if (closed_ || stopping_)
      return;
    // The answer is complete (Connection: close), or the service left:
    // a WebSocket client is told (1001) when a close frame fits.
    if (ec)
      return websocket_ ? close_ws(1001) : close_all();
    touch();
    if (websocket_ && !b2c_checked(n))
      return close_all();
    b2c_writing_ = true;
    net::async_write(client_, net::buffer(b2c_.data(), n),
                     [self = self()](beast::error_code wec, size_t) {
                       self->b2c_writing_ = false;
                       if (wec || self->stopping_)
                         return self->close_all();
                       self->touch();
                       self->read_backend();
                     });
  }

  /// The service's frames after its 101; nothing to check otherwise.
  bool b2c_checked(size_t n) {
    const auto* p = reinterpret_cast<const unsigned char*>(b2c_.data());
    size_t used = 0;
    if (!head_.done()) {
      used = head_.feed(p, n);
      if (!head_.done())
        return true;
    }
    if (!head_.switching())
      return true;
    return b2c_frames_.feed(p + used, n - used);
  }

  // -- idle and closing -----------------------------------------------

  void touch() { last_ = std::chrono::steady_clock::now(); }

  void arm_idle() {
    auto due = last_ + limits().idle_timeout;
    idle_.expires_at(due);
    idle_.async_wait([self = self()](beast::error_code ec) {
      if (ec || self->closed_)
        return;
      if (std::chrono::steady_clock::now() - self->last_
          >= self->limits().idle_timeout)
        return self->close_ws(1001);
      self->arm_idle();
    });
  }

  /// Ends a WebSocket with a close frame (`code`) to the client when
  /// one fits between the service's frames, then closes both sides.
  void close_ws(uint16_t code) {
    if (closed_ || stopping_)
      return;
    if (!websocket_ || !head_.done() || !head_.switching() || b2c_writing_
        || !b2c_frames_.at_boundary())
      return close_all();
    stopping_ = true;
    out_ = {'\x88', '\x02', static_cast<char>(code >> 8),
            static_cast<char>(code & 0xff)};
    beast::error_code ignored;
    backend_.socket().close(ignored);
    net::async_write(client_, net::buffer(out_),
                     [self = self()](beast::error_code ec, size_t) {
                       if (ec)
                         return self->close_all();
                       self->linger();
                     });
  }

  /// After our close frame: the client's answer is read and dropped for
  /// a second at most, so it is not cut off before it reads ours.
  void linger() {
    if constexpr (!is_tls) {
      beast::error_code ignored;
      client_tcp().socket().shutdown(tcp::socket::shutdown_send, ignored);
    }
    idle_.cancel();
    idle_.expires_after(std::chrono::seconds{1});
    idle_.async_wait([self = self()](beast::error_code) { self->close_all(); });
    if (!c2b_reading_)
      drain();
  }

  void drain() {
    c2b_reading_ = true;
    client_.async_read_some(net::buffer(c2b_),
                            [self = self()](beast::error_code ec, size_t) {
                              self->c2b_reading_ = false;
                              if (ec || self->closed_)
                                return self->close_all();
                              self->drain();
                            });
  }

  void close_all() {
    if (closed_)
      return;
    closed_ = true;
    idle_.cancel();
    beast::error_code ec;
    backend_.socket().shutdown(tcp::socket::shutdown_both, ec);
    backend_.socket().close(ec);
    client_tcp().socket().shutdown(tcp::socket::shutdown_both, ec);
    client_tcp().socket().close(ec);
    release();
    shared_->remove(this);
  }

  std::shared_ptr<server_shared> shared_;
  Stream client_;
  beast::tcp_stream backend_;
  net::steady_timer idle_;
  std::string first_;
  std::string early_; ///< client bytes read past the request
  std::string out_;
  bool websocket_;
  proxy_target target_;
  std::vector<char> c2b_;
  std::vector<char> b2c_;
  ws_frame_scanner c2b_frames_;
  ws_frame_scanner b2c_frames_;
  response_head_scanner head_;
  std::chrono::steady_clock::time_point last_ =
      std::chrono::steady_clock::now();
  bool closed_ = false;
  bool stopping_ = false;    ///< a close frame is on its way
  bool b2c_writing_ = false; ///< a write to the client is in flight
  bool c2b_reading_ = false; ///< a read from the client is in flight
  bool counted_ = true;
};

} // namespace

void start_proxy_conn(std::shared_ptr<server_shared> shared,
                      plain_stream stream, std::string first, std::string early,
                      bool websocket, proxy_target target) {
  std::make_shared<proxy_conn<plain_stream>>(
      std::move(shared), std::move(stream), std::move(first), std::move(early),
      websocket, std::move(target))
      ->run();
}

void start_proxy_conn(std::shared_ptr<server_shared> shared, tls_stream stream,
                      std::string first, std::string early, bool websocket,
                      proxy_target target) {
  std::make_shared<proxy_conn<tls_stream>>(std::move(shared), std::move(stream),
                                           std::move(first), std::move(early),
                                           websocket, std::move(target))
      ->run();
}

} // namespace det::http::detail
