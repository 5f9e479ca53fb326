// The only Beast translation unit of det_agent: one io_context and one I/O
// thread per connection; every stream operation runs on that thread.

#include "agent/ws_client.hpp"

#include "messages/errc.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include <deque>
#include <future>
#include <mutex>
#include <thread>

namespace det::agent {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

struct ws_client::impl {
  virtual ~impl() = default;
  virtual bool send(std::string text) = 0;
  virtual void close() = 0;
};

namespace {

using plain_ws = websocket::stream<beast::tcp_stream>;
using tls_ws = websocket::stream<beast::ssl_stream<beast::tcp_stream>>;

template <class WS>
class session final : public ws_client::impl,
                      public std::enable_shared_from_this<session<WS>> {
public:
  session(std::unique_ptr<net::io_context> ioc,
          std::shared_ptr<ssl::context> ctx)
      : ioc_(std::move(ioc)), ctx_(std::move(ctx)), ws_(make_ws(*ioc_, ctx_)) {}

  static WS make_ws(net::io_context& ioc,
                    const std::shared_ptr<ssl::context>& ctx) {
    if constexpr (std::is_same_v<WS, tls_ws>)
      return WS(ioc, *ctx);
    else
      return WS(ioc);
  }

  auto& tls_stream() { return ws_.next_layer(); }

  ~session() override { close(); }

  caf::error run(const ws_target& t, const ws_client_options& opts,
                 ws_client::message_handler on_message,
                 ws_client::close_handler on_close) {
    on_message_ = std::move(on_message);
    on_close_ = std::move(on_close);
    std::promise<caf::error> done;
    auto result = done.get_future();
    start(t, opts, std::move(done));
    thread_ = std::thread{[ioc = ioc_.get()] { ioc->run(); }};
    auto err = result.get();
    if (err) {
      std::lock_guard<std::mutex> guard{mu_};
      on_close_ = nullptr;
    }
    return err;
  }

  bool send(std::string text) override {
    {
      std::lock_guard<std::mutex> guard{mu_};
      if (!open_)
        return false;
    }
    net::post(*ioc_, [self = this->shared_from_this(),
                      text = std::move(text)]() mutable {
      self->queue_.push_back(std::move(text));
      if (self->queue_.size() == 1)
        self->write_next();
    });
    return true;
  }

  void close() override {
    if (!thread_.joinable())
      return;
    net::post(*ioc_, [self = this->shared_from_this()] {
      if (!self->ws_.is_open()) {
        beast::error_code ec;
        beast::get_lowest_layer(self->ws_).socket().close(ec);
        return;
      }
      self->ws_.async_close(websocket::close_code::normal,
                            [self](beast::error_code) {
                              beast::get_lowest_layer(self->ws_).close();
                            });
    });
    // A peer that never answers the close frame must not hold us up.
    auto joined = std::async(std::launch::async, [this] { thread_.join(); });
    if (joined.wait_for(std::chrono::seconds{3}) != std::future_status::ready)
      ioc_->stop();
    joined.wait();
    finish("closed by the agent");
  }

private:
  void start(const ws_target& t, const ws_client_options& opts,
             std::promise<caf::error> done) {
    auto self = this->shared_from_this();
    auto fail = std::make_shared<std::promise<caf::error>>(std::move(done));
    auto host = t.host;
    auto port = std::to_string(t.port);
    auto path = t.path;
    auto token = opts.bearer_token;
    auto timeout = opts.connect_timeout;
    auto resolver = std::make_shared<tcp::resolver>(*ioc_);
    resolver->async_resolve(
        host, port,
        [self, fail, resolver, host, port, path, token,
         timeout](beast::error_code ec, tcp::resolver::results_type results) {
          if (ec)
            return self->fail_connect(*fail, "resolving " + host, ec);
          auto& lowest = beast::get_lowest_layer(self->ws_);
          lowest.expires_after(timeout);
          lowest.async_connect(
              results, [self, fail, host, port, path,
                        token](beast::error_code ec2, tcp::endpoint) {
                if (ec2)
                  return self->fail_connect(
                      *fail, "connecting to " + host + ":" + port, ec2);
                self->after_connect(fail, host + ":" + port, path, token);
              });
        });
  }

  void after_connect(std::shared_ptr<std::promise<caf::error>> fail,
                     std::string host_port, std::string path,
                     std::string token) {
    auto self = this->shared_from_this();
    if constexpr (std::is_same_v<WS, tls_ws>) {
      ws_.next_layer().async_handshake(
          ssl::stream_base::client,
          [self, fail, host_port, path, token](beast::error_code ec) {
            if (ec)
              return self->fail_connect(*fail, "TLS handshake", ec);
            self->upgrade(fail, host_port, path, token);
          });
    } else {
      upgrade(fail, std::move(host_port), std::move(path), std::move(token));
    }
  }

  void upgrade(std::shared_ptr<std::promise<caf::error>> fail,
               std::string host_port, std::string path, std::string token) {
    beast::get_lowest_layer(ws_).expires_never();
    ws_.set_option(
        websocket::stream_base::timeout::suggested(beast::role_type::client));
    ws_.set_option(websocket::stream_base::decorator(
        [token](websocket::request_type& req) {
          req.set(beast::http::field::user_agent, "det-agent");
          if (!token.empty())
            req.set(beast::http::field::authorization, "Bearer " + token);
        }));
    auto self = this->shared_from_this();
    auto res = std::make_shared<websocket::response_type>();
    ws_.async_handshake(
        *res, host_port, path, [self, fail, res](beast::error_code ec) {
          if (ec) {
            auto what = std::string{"WebSocket upgrade"};
            if (res->result_int() != 0)
              what += " (HTTP " + std::to_string(res->result_int()) + ")";
            return self->fail_connect(*fail, what, ec);
          }
          {
            std::lock_guard<std::mutex> guard{self->mu_};
            self->open_ = true;
          }
          fail->set_value(caf::error{});
          self->read_next();
        });
  }

  void fail_connect(std::promise<caf::error>& p, const std::string& step,
                    beast::error_code ec) {
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).socket().close(ignored);
    p.set_value(make_error(errc::remote_error, step + ": " + ec.message()));
  }

  void read_next() {
    ws_.async_read(buffer_, [self = this->shared_from_this()](
                                beast::error_code ec, size_t) {
      if (ec)
        return self->finish(ec == websocket::error::closed
                                ? "closed by the master"
                                : ec.message());
      auto text = beast::buffers_to_string(self->buffer_.data());
      self->buffer_.consume(self->buffer_.size());
      ws_client::message_handler h;
      {
        std::lock_guard<std::mutex> guard{self->mu_};
        h = self->on_message_;
      }
      if (h)
        h(std::move(text));
      self->read_next();
    });
  }

  void write_next() {
    ws_.text(true);
    ws_.async_write(
        net::buffer(queue_.front()),
        [self = this->shared_from_this()](beast::error_code ec, size_t) {
          if (ec) {
            self->queue_.clear();
            return self->finish(ec.message());
          }
          self->queue_.pop_front();
          if (!self->queue_.empty())
            self->write_next();
        });
  }

  void finish(const std::string& reason) {
    ws_client::close_handler h;
    {
      std::lock_guard<std::mutex> guard{mu_};
      open_ = false;
      h = std::move(on_close_);
      on_close_ = nullptr;
      on_message_ = nullptr;
    }
    if (h)
      h(reason);
  }

  std::unique_ptr<net::io_context> ioc_;
  std::shared_ptr<ssl::context> ctx_; // outlives ws_
  WS ws_;
  beast::flat_buffer buffer_;
  std::deque<std::string> queue_; // I/O thread only
  std::thread thread_;
  std::mutex mu_;
  bool open_ = false;
  ws_client::message_handler on_message_;
  ws_client::close_handler on_close_;
};

} // namespace

ws_client::ws_client() = default;

ws_client::~ws_client() {
  close();
}

caf::error ws_client::connect(const ws_target& target,
                              const ws_client_options& opts,
                              message_handler on_message,
                              close_handler on_close) {
  auto ioc = std::make_unique<net::io_context>(1);
  if (!target.tls) {
    auto s = std::make_shared<session<plain_ws>>(std::move(ioc), nullptr);
    impl_ = s;
    return s->run(target, opts, std::move(on_message), std::move(on_close));
  }
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  beast::error_code ec;
  if (!opts.ca_cert.empty())
    ctx->load_verify_file(opts.ca_cert, ec);
  else
    ctx->set_default_verify_paths(ec);
  if (ec)
    return make_error(
        errc::invalid_argument,
        "CA certificates"
            + (opts.ca_cert.empty() ? std::string{} : " " + opts.ca_cert) + ": "
            + ec.message());
  ctx->set_verify_mode(opts.skip_verify ? ssl::verify_none : ssl::verify_peer);
  auto s = std::make_shared<session<tls_ws>>(std::move(ioc), ctx);
  auto name = opts.server_name.empty() ? target.host : opts.server_name;
  auto& stream = s->tls_stream();
  if (!opts.skip_verify)
    stream.set_verify_callback(ssl::host_name_verification(name));
  // SNI; SSL_set_tlsext_host_name is a macro with an old-style cast.
  SSL_ctrl(stream.native_handle(), SSL_CTRL_SET_TLSEXT_HOSTNAME,
           TLSEXT_NAMETYPE_host_name,
           static_cast<void*>(const_cast<char*>(target.host.c_str())));
  impl_ = s;
  return s->run(target, opts, std::move(on_message), std::move(on_close));
}

bool ws_client::send(std::string text) {
  return impl_ != nullptr && impl_->send(std::move(text));
}

void ws_client::close() {
  if (impl_)
    impl_->close();
}

} // namespace det::agent
