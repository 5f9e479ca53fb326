#pragma once

// The one HTTP exchange the aws/ code needs: send a request, get status,
// headers and body back. An interface so tests can script responses; the
// libcurl implementation is make_curl_http_client(). send() blocks the
// calling thread: never call it on an actor thread (see async_executor.hpp).

#include "aws/sigv4.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace det::aws {

struct http_request {
  std::string method = "GET";
  /// Absolute URL: http://127.0.0.1:5000/ or
  /// https://ec2.us-east-1.amazonaws.com/
  std::string url;
  header_list headers;
  std::string body;
  /// Whole exchange, and the connect phase of it.
  std::chrono::milliseconds timeout{30'000};
  std::chrono::milliseconds connect_timeout{5'000};
  /// Never go through an HTTP proxy (IMDS is link-local).
  bool no_proxy = false;
};

struct http_response {
  long status = 0;
  /// Names as the server sent them.
  header_list headers;
  std::string body;

  /// The first header named `name` (case-insensitive), or "".
  std::string header(std::string_view name) const;
};

class http_client {
public:
  virtual ~http_client() = default;

  /// Any HTTP status is a response, not an error. Fails with an aws error
  /// of kind transport (aws_error.hpp) when no response arrived: refused,
  /// reset, timed out, or an unresolvable host.
  [[nodiscard]] virtual caf::expected<http_response>
  send(const http_request& req) = 0;
};

/// libcurl behind http_client. Thread-safe: concurrent send() calls use
/// separate easy handles from a small pool, so connections are reused.
std::shared_ptr<http_client> make_curl_http_client();

/// The parts of an absolute http(s) URL that signing needs.
struct url_parts {
  std::string scheme;
  /// Lowercase host without port, e.g. "127.0.0.1".
  std::string host;
  /// Explicit port, or 0.
  int port = 0;
  /// The path as written, "/" when absent; no query.
  std::string path = "/";

  /// The Host header: host, plus ":port" unless the scheme's default.
  std::string host_header() const;
};

/// Fails with errc::invalid_argument naming the URL when it is not an
/// absolute http:// or https:// URL.
[[nodiscard]] caf::expected<url_parts> parse_url(const std::string& url);

} // namespace det::aws
