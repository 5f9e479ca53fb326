// The listener and the server's lifecycle: I/O threads, TLS context,
// graceful stop. Connections live in http_session.cpp and
// ws_connection.cpp.

#include "http/http_server.hpp"

#include "http/detail/server_core.hpp"
#include "messages/errc.hpp"

#include <boost/asio/strand.hpp>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace det::http {

using namespace detail;

struct http_server::impl {
  impl(server_config c, router r)
      : shared(
          std::make_shared<server_shared>(ioc, std::move(c), std::move(r))),
        acceptor(ioc) {}

  void accept() {
    acceptor.async_accept(
        net::make_strand(ioc), [this](beast::error_code ec, tcp::socket sock) {
          if (ec == net::error::operation_aborted || !acceptor.is_open())
            return;
          if (!ec && !shared->stopping) {
            sock.set_option(tcp::no_delay{true}, ec);
            if (shared->tls)
              start_https_session(shared,
                                  tls_stream{std::move(sock), *shared->tls});
            else
              start_http_session(shared, plain_stream{std::move(sock)});
          }
          // Out of descriptors and similar: keep accepting, do not spin
          // the error into a crash.
          accept();
        });
  }

  net::io_context ioc;
  std::shared_ptr<server_shared> shared;
  tcp::acceptor acceptor;
  std::vector<std::thread> threads;
  std::mutex run_mu;
  std::condition_variable run_cv;
  size_t running = 0; // threads inside ioc.run(), under run_mu
  uint16_t port = 0;
  bool started = false;
  bool stopped = false;
};

http_server::http_server(server_config cfg, router routes)
    : impl_(std::make_unique<impl>(std::move(cfg), std::move(routes))) {}

http_server::~http_server() {
  stop(std::chrono::milliseconds{0});
}

void http_server::add_proxy(std::string prefix, proxy_resolver resolve,
                            proxy_limits limits) {
  impl_->shared->proxy =
      proxy_route{std::move(prefix), std::move(resolve), limits};
}

void http_server::add_websocket(std::string path, ws_accept_handler on_accept,
                                ws_authorizer authorize) {
  impl_->shared->ws_routes.push_back(
      ws_route{std::move(path), std::move(on_accept), std::move(authorize)});
}

caf::expected<uint16_t> http_server::start() {
  auto& d = *impl_;
  auto& cfg = d.shared->cfg;
  if (d.started)
    return make_error(errc::invalid_argument, "http_server already started");
  if (auto err = d.shared->routes.error())
    return err;
  beast::error_code ec;
  auto addr = net::ip::make_address(cfg.address, ec);
  if (ec)
    return make_error(errc::invalid_argument,
                      "bad listen address '" + cfg.address + "'");
  if (cfg.tls) {
    auto ctx =
        std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
    ctx->set_options(net::ssl::context::default_workarounds
                     | net::ssl::context::no_sslv2
                     | net::ssl::context::no_sslv3);
    ctx->use_certificate_chain_file(cfg.tls->cert_file, ec);
    if (ec)
      return make_error(errc::invalid_argument, "TLS certificate "
                                                    + cfg.tls->cert_file + ": "
                                                    + ec.message());
    ctx->use_private_key_file(cfg.tls->key_file, net::ssl::context::pem, ec);
    if (ec)
      return make_error(errc::invalid_argument,
                        "TLS key " + cfg.tls->key_file + ": " + ec.message());
    d.shared->tls = std::move(ctx);
  }
  tcp::endpoint ep{addr, cfg.port};
  auto fail = [&](const char* what) {
    beast::error_code ignored;
    d.acceptor.close(ignored);
    return make_error(errc::remote_error, std::string{what} + " " + cfg.address
                                              + ":" + std::to_string(cfg.port)
                                              + ": " + ec.message());
  };
  d.acceptor.open(ep.protocol(), ec);
  if (ec)
    return fail("open");
  d.acceptor.set_option(net::socket_base::reuse_address{true}, ec);
  d.acceptor.bind(ep, ec);
  if (ec)
    return fail("bind");
  d.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    return fail("listen");
  d.port = d.acceptor.local_endpoint(ec).port();
  d.started = true;
  d.accept();
  auto n = std::max<size_t>(1, cfg.threads);
  d.running = n;
  for (size_t i = 0; i < n; ++i)
    d.threads.emplace_back([&d] {
      // Handlers are called inside; an exception escaping one is a bug
      // in api/, but must not take the master down with it.
      for (;;) {
        try {
          d.ioc.run();
          break;
        } catch (...) {
        }
      }
      std::lock_guard<std::mutex> guard{d.run_mu};
      --d.running;
      d.run_cv.notify_all();
    });
  return d.port;
}

uint16_t http_server::port() const {
  return impl_->port;
}

void http_server::stop(std::chrono::milliseconds grace) {
  auto& d = *impl_;
  if (!d.started || d.stopped)
    return;
  d.stopped = true;
  auto& shared = *d.shared;
  shared.stopping = true;
  net::post(d.ioc, [&d] {
    beast::error_code ec;
    d.acceptor.close(ec);
  });
  auto wait_empty = [&](std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> lock{shared.mu};
    return shared.cv.wait_for(lock, limit,
                              [&] { return shared.conns.empty(); });
  };
  for (auto& c : shared.live())
    c->begin_shutdown();
  if (!wait_empty(grace)) {
    for (auto& c : shared.live())
      c->force_close();
    (void)wait_empty(std::chrono::seconds{2});
  }
  shared.gate->close();
  // With the acceptor and every socket closed, run() returns once the last
  // completion handler has run. Let it: destroying a still-pending Beast
  // or SSL operation while the io_context shuts down is not safe. Only a
  // connection that refuses to die is abandoned to ioc.stop().
  {
    std::unique_lock<std::mutex> lock{d.run_mu};
    if (!d.run_cv.wait_for(lock, std::chrono::seconds{2},
                           [&] { return d.running == 0; })) {
      lock.unlock();
      d.ioc.stop();
    }
  }
  for (auto& t : d.threads)
    t.join();
  d.threads.clear();
}

size_t http_server::connection_count() const {
  return impl_->shared->count();
}

} // namespace det::http
