#pragma once

// The HTTP/1.1 + WebSocket server of the master (REST on 8080, or HTTPS on
// 8443 when TLS is configured). It owns its io_context and I/O threads;
// handlers run there (never on CAF threads) and answer through a responder
// from any thread. Keep-alive, limits and timeouts follow server_config;
// transport refusals use the upstream error JSON (413 for a body over the
// limit, 431 for headers over the limit, 400 for a malformed request).
//
// Lifecycle: construct, add_websocket(), start(), ..., stop(). start() and
// stop() are called from one owning thread; stop() is also run by the
// destructor. Handles (responders, streams, WebSocket sessions) may outlive
// the server: their calls then do nothing.

#include "http/http_message.hpp"
#include "http/proxy.hpp"
#include "http/router.hpp"
#include "http/ws_session.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace det::http {

/// PEM files for HTTPS. With TLS configured, the port serves HTTPS only.
struct tls_config {
  std::string cert_file; ///< certificate chain, PEM
  std::string key_file;  ///< private key, PEM
};

struct server_config {
  std::string address = "127.0.0.1"; ///< "0.0.0.0" to serve every interface
  uint16_t port = 0;                 ///< 0: pick a free port, see port()
  size_t threads = 1;                ///< I/O threads
  size_t body_limit = 64u << 20;     ///< bytes; larger bodies get 413
  /// The body limit of one request, from its method, path and whether it
  /// carries an Authorization header (known once its head is read). Unset:
  /// body_limit for every request. A body passing it, chunked or not, is
  /// refused with 413 as soon as the limit is passed: nothing beyond it is
  /// buffered.
  std::function<size_t(std::string_view method, std::string_view path,
                       bool authorized)>
      body_limit_for;

  /// The body limit of a request to `target` (path and query).
  [[nodiscard]] size_t limit_for(std::string_view method,
                                 std::string_view target,
                                 bool authorized) const;
  size_t header_limit = 16u << 10; ///< bytes; larger headers get 431
  /// Keep-alive: how long an open connection may wait for its next request.
  std::chrono::milliseconds idle_timeout{std::chrono::seconds{75}};
  /// From the first byte of a request until it is fully read.
  std::chrono::milliseconds read_timeout{std::chrono::seconds{30}};
  /// For one write of a response, stream chunk or WebSocket frame.
  std::chrono::milliseconds write_timeout{std::chrono::seconds{30}};
  /// A WebSocket peer silent this long is dropped; a ping goes out at half.
  std::chrono::milliseconds ws_idle_timeout{std::chrono::seconds{60}};
  /// Unwritten bytes a stream or WebSocket may queue before it is cut off.
  size_t send_queue_limit = 16u << 20;
  std::optional<tls_config> tls;
  /// Value of the Server header; empty sends none.
  std::string server_name = "det-master";
};

/// Called for each accepted WebSocket on its I/O thread; set the session's
/// callbacks here and keep the handle (e.g. pass it to an actor).
using ws_accept_handler = std::function<void(ws_session session)>;

/// Called before the upgrade is accepted (check the agent token). Return a
/// response to refuse the upgrade with it, or nullopt to accept.
using ws_authorizer =
    std::function<std::optional<http_response>(const http_request& req)>;

class http_server {
public:
  http_server(server_config cfg, router routes);
  ~http_server();

  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  /// Serves WebSocket upgrades on `path` (e.g. "/agents/ws"); other
  /// requests on it go to the router. Call before start().
  void add_websocket(std::string path, ws_accept_handler on_accept,
                     ws_authorizer authorize = {});

  /// Sends requests under `prefix` ("/proxy/") to the proxy
  /// (http/proxy.hpp): they reach neither the router nor its guard. Call
  /// before start().
  void add_proxy(std::string prefix, proxy_resolver resolve,
                 proxy_limits limits = {});

  /// Binds, listens and starts the I/O threads. Returns the bound port.
  /// Fails with errc::invalid_argument (bad address, router error, TLS
  /// files unreadable) or errc::remote_error (bind/listen failed).
  [[nodiscard]] caf::expected<uint16_t> start();

  /// The bound port, 0 before start().
  [[nodiscard]] uint16_t port() const;

  /// Stops accepting, lets requests in flight finish for up to `grace`,
  /// closes every connection (streams and sessions are cancelled/closed),
  /// then joins the I/O threads. Idempotent.
  void stop(std::chrono::milliseconds grace = std::chrono::seconds{5});

  /// Open connections (HTTP and WebSocket), for tests and metrics.
  [[nodiscard]] size_t connection_count() const;

  struct impl;

private:
  std::unique_ptr<impl> impl_;
};

} // namespace det::http
