#pragma once

// The project's one HTTP client (libcurl): send a request, get status,
// headers and body back. Used by aws/ (EC2, CloudFormation, IMDS), det-agent
// (model definitions from the master) and det-inspect. An interface so tests
// can script responses; the libcurl implementation is
// make_curl_http_client(). send() blocks the calling thread: never call it
// on an actor thread (aws/async_executor.hpp runs it on its own threads).

#include <caf/expected.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace det::net {

/// Header names and values in order; names as written.
using header_list = std::vector<std::pair<std::string, std::string>>;

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
  /// PEM bundle to verify https servers with; "" = the system's roots.
  std::string ca_cert;
  /// Accept any https certificate (development clusters only).
  bool skip_verify = false;
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

  /// Any HTTP status is a response, not an error. Fails with
  /// errc::remote_error when no response arrived (refused, reset, timed
  /// out, an unresolvable host), its text
  ///   [transport <code>] <METHOD> <url>: <detail>
  /// (<code> "curl:<n>"): the form aws/aws_error.hpp reads as an AWS error
  /// of kind transport.
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

} // namespace det::net
