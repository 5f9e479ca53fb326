// TCP over WebSocket (http/proxy.hpp, proxy_target::tcp): the proxy
// accepts the client's WebSocket itself and connects a plain TCP socket to
// the service (a shell's sshd); each binary message goes to the service as
// bytes, each read from the service goes back as one binary message. As in
// proxy_conn.cpp each direction is one read and one write at a time: a
// slow side stalls the other, nothing queues. A message over max_frame
// closes both sides.

#include "http/detail/server_core.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <vector>

namespace det::http::detail {

namespace {

namespace websocket = beast::websocket;

template <class Stream> class tcp_ws_conn final : public conn_base {
public:
  tcp_ws_conn(std::shared_ptr<server_shared> shared, Stream client,
              proxy_target target)
      : shared_(std::move(shared)), ws_(std::move(client)),
        backend_(ws_.get_executor()), idle_(ws_.get_executor()),
        target_(std::move(target)), b2c_(limits().buffer) {}

  ~tcp_ws_conn() override { release(); }

  void run(raw_request upgrade) {
    shared_->add(shared_from_this());
    websocket::stream_base::timeout opt;
    opt.handshake_timeout = shared_->cfg.read_timeout;
    opt.idle_timeout = websocket::stream_base::none();
    opt.keep_alive_pings = false;
    ws_.set_option(opt);
    ws_.read_message_max(0);
    ws_.binary(true);
    auto req = std::make_shared<raw_request>(std::move(upgrade));
    net::dispatch(ws_.get_executor(),
                  [self = self(), req] { self->connect(req); });
  }

  void begin_shutdown() override { force_close(); }
  void force_close() override {
    net::dispatch(ws_.get_executor(), [self = self()] { self->close_all(); });
  }

private:
  std::shared_ptr<tcp_ws_conn> self() {
    return std::static_pointer_cast<tcp_ws_conn>(shared_from_this());
  }
  const proxy_limits& limits() const { return shared_->proxy->limits; }

  void release() {
    if (!counted_)
      return;
    counted_ = false;
    shared_->proxy_release(target_.key);
  }

  /// The service first: a client is accepted only when it can be served.
  void connect(std::shared_ptr<raw_request> req) {
    beast::error_code ec;
    auto addr = net::ip::make_address(target_.host, ec);
    if (ec)
      return close_all();
    backend_.expires_after(limits().connect_timeout);
    backend_.async_connect(tcp::endpoint{addr, target_.port},
                           [self = self(), req](beast::error_code cec) {
                             if (cec)
                               return self->close_all();
                             self->backend_.expires_never();
                             self->ws_.async_accept(
                                 *req, [self, req](beast::error_code aec) {
                                   if (aec)
                                     return self->close_all();
                                   self->touch();
                                   self->arm_idle();
                                   self->read_client();
                                   self->read_backend();
                                 });
                           });
  }

  /// One client message at a time, whole before any of it goes to the
  /// service. Beast's own read_message_max would fail the connection on
  /// its own, and Boost 1.74's teardown then closes after one read,
  /// leaving the client's bytes unread (the client sees a reset, not the
  /// close frame's 1009). So the size is counted here, and an oversized
  /// message gets a closing handshake: close 1009, then the client's close
  /// (its remaining frames read and dropped, bounded by the handshake
  /// timeout), then both sides closed.
  void read_client() {
    if (closed_)
      return;
    auto room = limits().max_frame - std::min(in_.size(), limits().max_frame);
    if (room == 0)
      return refuse_oversized();
    ws_.async_read_some(in_, std::min<size_t>(room, read_chunk),
                        [self = self()](beast::error_code ec, size_t) {
                          if (ec || self->closed_)
                            return self->close_all();
                          self->touch();
                          if (!self->ws_.is_message_done())
                            return self->read_client();
                          net::async_write(
                              self->backend_, self->in_.data(),
                              [self](beast::error_code wec, size_t) {
                                self->in_.consume(self->in_.size());
                                if (wec)
                                  return self->close_all();
                                self->touch();
                                self->read_client();
                              });
                        });
  }

  void refuse_oversized() {
    in_.consume(in_.size());
    ws_.async_close(websocket::close_code::too_big,
                    [self = self()](beast::error_code) { self->close_all(); });
  }

  void read_backend() {
    if (closed_)
      return;
    backend_.async_read_some(
        net::buffer(b2c_), [self = self()](beast::error_code ec, size_t n) {
          if (ec || self->closed_)
            return self->close_all();
          self->touch();
          self->ws_.async_write(net::buffer(self->b2c_.data(), n),
                                [self](beast::error_code wec, size_t) {
                                  if (wec)
                                    return self->close_all();
                                  self->touch();
                                  self->read_backend();
                                });
        });
  }

  void touch() { last_ = std::chrono::steady_clock::now(); }

  void arm_idle() {
    idle_.expires_at(last_ + limits().idle_timeout);
    idle_.async_wait([self = self()](beast::error_code ec) {
      if (ec || self->closed_)
        return;
      if (std::chrono::steady_clock::now() - self->last_
          >= self->limits().idle_timeout)
        return self->close_all();
      self->arm_idle();
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
    auto& low = beast::get_lowest_layer(ws_).socket();
    low.shutdown(tcp::socket::shutdown_both, ec);
    low.close(ec);
    release();
    shared_->remove(this);
  }

  std::shared_ptr<server_shared> shared_;
  websocket::stream<Stream> ws_;
  beast::tcp_stream backend_;
  net::steady_timer idle_;
  proxy_target target_;
  beast::flat_buffer in_;
  std::vector<char> b2c_;
  std::chrono::steady_clock::time_point last_ =
      std::chrono::steady_clock::now();
  bool closed_ = false;
  bool counted_ = true;
  static constexpr size_t read_chunk = 64 * 1024;
};

} // namespace

void start_tcp_over_ws(std::shared_ptr<server_shared> shared,
                       plain_stream stream, raw_request upgrade,
                       proxy_target target) {
  std::make_shared<tcp_ws_conn<plain_stream>>(
      std::move(shared), std::move(stream), std::move(target))
      ->run(std::move(upgrade));
}

void start_tcp_over_ws(std::shared_ptr<server_shared> shared, tls_stream stream,
                       raw_request upgrade, proxy_target target) {
  std::make_shared<tcp_ws_conn<tls_stream>>(
      std::move(shared), std::move(stream), std::move(target))
      ->run(std::move(upgrade));
}

} // namespace det::http::detail
