#pragma once

// AWS Signature Version 4 (AWS4-HMAC-SHA256) for requests sent in headers.
// sign_v4() is a pure function of its arguments, time included, so tests pin
// it against AWS's published vectors and against botocore. Safe from any
// thread; it performs no I/O.

#include "aws/credentials.hpp"
#include "net/http_client.hpp"

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace det::aws {

using net::header_list;
using param_list = std::vector<std::pair<std::string, std::string>>;

/// One HTTP request as it will be sent.
struct sigv4_request {
  std::string method;
  /// The Host header value: lowercase, with ":port" only for a non-default
  /// port. Signed; the sender must send exactly this Host.
  std::string host;
  /// The path as it goes on the wire, already percent-encoded (see
  /// encode_path); empty means "/".
  std::string path = "/";
  /// Query parameters, decoded, in any order; repeated names are allowed.
  param_list query;
  /// Headers to send and sign. Names in any case; repeated names are joined
  /// with ','. Hop-by-hop headers and User-Agent are sent but not signed.
  /// Must not contain Authorization or X-Amz-Date.
  header_list headers;
  std::string body;
};

struct sigv4_scope {
  std::string region;
  std::string service;
};

struct sigv4_options {
  /// Add and sign X-Amz-Content-Sha256 (S3 requires it; EC2 does not).
  bool add_content_sha256 = false;
  /// Remove dot segments and repeated slashes, then encode the path a second
  /// time, as every service but S3 expects. False signs the path verbatim.
  bool normalize_path = true;
};

struct sigv4_result {
  /// The headers to add to the request: X-Amz-Date, X-Amz-Security-Token
  /// (with temporary credentials), X-Amz-Content-Sha256 (when asked), and
  /// Authorization, in that order.
  header_list headers;
  std::string authorization;
  // The intermediate values, for tests and for debugging a mismatch.
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;
};

[[nodiscard]] sigv4_result sign_v4(const sigv4_request& req,
                                   const sigv4_scope& scope,
                                   const credentials& creds,
                                   std::chrono::system_clock::time_point now,
                                   const sigv4_options& opts = {});

/// Percent-encodes every byte but A-Z a-z 0-9 - _ . ~ (and '/' when
/// keep_slash), with uppercase hex: the SigV4 and EC2 Query encoding.
std::string uri_encode(std::string_view text, bool keep_slash = false);

/// The wire form of a decoded path: each segment percent-encoded, '/' kept.
std::string encode_path(std::string_view raw_path);

/// "k1=v1&k2=v2" with encoded names and values sorted by name, then value.
std::string canonical_query(const param_list& params);

/// "20150830T123600Z" (UTC).
std::string amz_date(std::chrono::system_clock::time_point t);

} // namespace det::aws
