#pragma once

// Private to api/: the Beast/Asio machinery shared by the listener, HTTP
// sessions and WebSocket sessions. Only api/*.cpp files that already pay for
// Beast include this header.

#include "http/http_server.hpp"
#include "http/proxy.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace det::http::detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;

using plain_stream = beast::tcp_stream;
using tls_stream = beast::ssl_stream<beast::tcp_stream>;
using raw_request = bhttp::request<bhttp::string_body>;

/// The only way from a foreign thread into the io_context: post() is
/// refused once the server closes the gate, so a handle that outlives the
/// server never touches a destroyed io_context.
class io_gate {
public:
  explicit io_gate(net::io_context& ioc) : ioc_(&ioc) {}

  template <class F> bool post(F&& f) {
    std::lock_guard<std::mutex> guard{mu_};
    if (!ioc_)
      return false;
    net::post(*ioc_, std::forward<F>(f));
    return true;
  }

  void close() {
    std::lock_guard<std::mutex> guard{mu_};
    ioc_ = nullptr;
  }

private:
  std::mutex mu_;
  net::io_context* ioc_;
};

/// A live connection, as the server's registry sees it.
class conn_base : public std::enable_shared_from_this<conn_base> {
public:
  virtual ~conn_base();
  /// Graceful: finish the request in flight, then close. Posts to the
  /// connection's strand; callable from any I/O thread.
  virtual void begin_shutdown() = 0;
  /// Immediate: cancel streams and close the socket.
  virtual void force_close() = 0;
};

struct ws_route {
  std::string path;
  ws_accept_handler on_accept;
  ws_authorizer authorize;
};

struct proxy_route {
  std::string prefix; ///< "/proxy/"
  proxy_resolver resolve;
  proxy_limits limits;
};

/// What every connection shares with the server. Created by start();
/// immutable afterwards except the registry and `stopping`.
struct server_shared {
  server_shared(net::io_context& io, server_config c, router r)
      : ioc(io), cfg(std::move(c)), routes(std::move(r)),
        gate(std::make_shared<io_gate>(io)) {}

  net::io_context& ioc;
  server_config cfg;
  router routes;
  std::vector<ws_route> ws_routes;
  std::optional<proxy_route> proxy;
  std::shared_ptr<io_gate> gate;
  std::unique_ptr<net::ssl::context> tls;
  std::atomic<bool> stopping{false};

  const ws_route* find_ws(const std::string& path) const {
    for (const auto& r : ws_routes)
      if (r.path == path)
        return &r;
    return nullptr;
  }

  void add(const std::shared_ptr<conn_base>& c) {
    std::lock_guard<std::mutex> guard{mu};
    conns.emplace(c.get(), c);
  }
  void remove(conn_base* c) {
    std::lock_guard<std::mutex> guard{mu};
    conns.erase(c);
    if (conns.empty())
      cv.notify_all();
  }
  std::vector<std::shared_ptr<conn_base>> live() {
    std::vector<std::shared_ptr<conn_base>> out;
    std::lock_guard<std::mutex> guard{mu};
    for (auto& [ptr, weak] : conns)
      if (auto c = weak.lock())
        out.push_back(std::move(c));
    return out;
  }
  size_t count() {
    std::lock_guard<std::mutex> guard{mu};
    return conns.size();
  }

  /// Whether `path` goes to the proxy.
  bool proxied(const std::string& path) const {
    return proxy && path.compare(0, proxy->prefix.size(), proxy->prefix) == 0;
  }

  /// Counts one more proxied connection for `key`; false at the limit.
  bool proxy_acquire(const std::string& key) {
    std::lock_guard<std::mutex> guard{mu};
    auto& n = proxy_conns[key];
    if (n >= proxy->limits.max_conns_per_key)
      return false;
    ++n;
    return true;
  }
  void proxy_release(const std::string& key) {
    std::lock_guard<std::mutex> guard{mu};
    auto i = proxy_conns.find(key);
    if (i != proxy_conns.end() && --i->second == 0)
      proxy_conns.erase(i);
  }

  std::mutex mu;
  std::condition_variable cv;
  std::unordered_map<std::string, size_t> proxy_conns;
  std::unordered_map<conn_base*, std::weak_ptr<conn_base>> conns;
};

/// Converts a parsed Beast request into the handler-facing value.
http_request to_http_request(raw_request&& msg, std::string remote_address,
                             bool tls);

// -- the steps of reading a request (request_reader.cpp), shared by the
// sessions and read_request() ------------------------------------------

using request_parser = bhttp::request_parser<bhttp::string_body>;

/// A fresh parser with the server's header limit and its largest body
/// limit (the request's own is set once its head is read).
void prepare_parser(request_parser& p, const server_config& cfg);

/// Once the head is read: sets the request's own body limit
/// (cfg.limit_for) on `p` and in `limit`; body_limit when the declared
/// Content-Length is over it, so nothing of the body is read.
[[nodiscard]] beast::error_code
apply_body_limit(request_parser& p, const server_config& cfg, size_t& limit);

/// The answer to a read error before the connection closes: 413 for a
/// body over `limit`, 431 for headers over the limit, 400 for a malformed
/// request; nullopt (close without answering) when the peer went away or
/// stopped in the middle of a request.
[[nodiscard]] std::optional<http_response>
read_refusal(beast::error_code ec, size_t limit, const server_config& cfg);

/// Starts serving HTTP on an accepted (and, for TLS, not yet handshaken)
/// stream. Defined in http_session.cpp.
void start_http_session(std::shared_ptr<server_shared> shared,
                        plain_stream stream);
void start_https_session(std::shared_ptr<server_shared> shared,
                         tls_stream stream);

/// Takes over a stream whose upgrade request was read and authorised.
/// Defined in ws_connection.cpp.
void start_ws_session(std::shared_ptr<server_shared> shared,
                      plain_stream stream, raw_request upgrade,
                      http_request req, const ws_route& route);
void start_ws_session(std::shared_ptr<server_shared> shared, tls_stream stream,
                      raw_request upgrade, http_request req,
                      const ws_route& route);

/// The bytes sent to a proxy's backend for `msg`: its request line and
/// path unchanged; Authorization only when it is not "Bearer" (the
/// master's session), the `auth` cookie removed; hop-by-hop headers
/// replaced ("Connection: close", or the upgrade's); X-Real-IP,
/// X-Forwarded-For and X-Forwarded-Proto set; the body with its length.
std::string proxy_request_bytes(const raw_request& msg,
                                const std::string& remote_address, bool tls,
                                bool websocket);

/// Takes over a stream whose request was accepted by the proxy's
/// resolver (counted under target.key already). `first` is sent to the
/// backend before anything else, then `early` (client bytes read past the
/// request). Defined in proxy_conn.cpp.
void start_proxy_conn(std::shared_ptr<server_shared> shared,
                      plain_stream stream, std::string first, std::string early,
                      bool websocket, proxy_target target);
void start_proxy_conn(std::shared_ptr<server_shared> shared, tls_stream stream,
                      std::string first, std::string early, bool websocket,
                      proxy_target target);

/// Accepts the client's WebSocket `upgrade` and carries its messages to a
/// TCP service (proxy_target::tcp). Defined in proxy_tcp.cpp.
void start_tcp_over_ws(std::shared_ptr<server_shared> shared,
                       plain_stream stream, raw_request upgrade,
                       proxy_target target);
void start_tcp_over_ws(std::shared_ptr<server_shared> shared, tls_stream stream,
                       raw_request upgrade, proxy_target target);

} // namespace det::http::detail
