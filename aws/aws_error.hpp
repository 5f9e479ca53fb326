#pragma once

// How an AWS failure is reported across the aws/ interface: a det error with
// code errc::remote_error whose message starts with "[<kind> <Code>]", e.g.
//   remote_error: [throttling RequestLimitExceeded] ec2 RunInstances at
//   https://ec2.us-east-1.amazonaws.com/ (HTTP 503): Request limit exceeded.
// The kind is what callers branch on (retry, try another offering, alert);
// the AWS code is kept for logs and for the few callers that need it
// (InvalidInstanceID.NotFound). aws_error_of() reads both back.

#include <caf/error.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace det::aws {

enum class aws_error_kind : uint8_t {
  /// Not an AWS error (success, or another category).
  none,
  /// RequestLimitExceeded, Throttling: retry after a backoff.
  throttling,
  /// InsufficientInstanceCapacity and friends: try another offering.
  insufficient_capacity,
  /// VcpuLimitExceeded, InstanceLimitExceeded, ...: needs a human.
  quota,
  /// AuthFailure, UnauthorizedOperation, SignatureDoesNotMatch, ...
  auth,
  /// The request itself is wrong (InvalidParameterValue, ...).
  bad_request,
  /// An id that does not exist (InvalidInstanceID.NotFound, ...).
  not_found,
  /// InternalError, Unavailable, HTTP 5xx: retry after a backoff.
  server_error,
  /// No HTTP answer: connection refused or reset, timeout, DNS.
  transport,
};

const char* to_string(aws_error_kind kind);

/// The kind of an EC2 (or other Query API) error code; `http_status` decides
/// for codes it does not know (5xx -> server_error, else bad_request).
aws_error_kind classify_aws_code(std::string_view code, long http_status);

/// Throttling, server errors and transport failures are worth retrying.
bool is_retryable(aws_error_kind kind);

/// errc::remote_error with the "[kind Code] context: message" text.
caf::error make_aws_error(aws_error_kind kind, const std::string& code,
                          const std::string& context,
                          const std::string& message);

struct aws_error_info {
  aws_error_kind kind = aws_error_kind::none;
  std::string code;
};

/// The message of a det error without its code name ("IMDS at ...: ..."),
/// for nesting one error's text inside another; det::render() otherwise.
std::string error_text(const caf::error& err);

/// Reads kind and code back from an error made by make_aws_error; kind none
/// for any other error.
aws_error_info aws_error_of(const caf::error& err);

} // namespace det::aws
