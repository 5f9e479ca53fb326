#pragma once

// Errors in the upstream master's wire shape. A failed call answers
//   {"error":{"code":<grpc int>,"reason":"<CodeName>","error":"<message>"}}
// with the HTTP status grpc-gateway derives from the code; a failure in the
// middle of a stream is one line
//   {"error":{"grpcCode":..,"httpCode":..,"message":..,"httpStatus":..,
//             "details":[]}}
// The `det` CLI prints body["error"]["error"] and branches on 401/403/404, so
// these shapes are part of the API contract.

#include "http/http_message.hpp"

#include <caf/error.hpp>

#include <string>
#include <string_view>

namespace det::http {

/// gRPC status codes, numbered as on the wire.
enum class grpc_code : int {
  ok = 0,
  cancelled = 1,
  unknown = 2,
  invalid_argument = 3,
  deadline_exceeded = 4,
  not_found = 5,
  already_exists = 6,
  permission_denied = 7,
  resource_exhausted = 8,
  failed_precondition = 9,
  aborted = 10,
  out_of_range = 11,
  unimplemented = 12,
  internal = 13,
  unavailable = 14,
  data_loss = 15,
  unauthenticated = 16,
};

/// grpc-gateway's HTTPStatusFromCode (Canceled -> 408, Unknown -> 500, ...).
[[nodiscard]] int http_status_of(grpc_code code);

/// The Go name of the code: "NotFound", "InvalidArgument", ...
[[nodiscard]] const char* reason_of(grpc_code code);

/// The JSON error body. Unknown is reported as Internal, like upstream.
[[nodiscard]] std::string error_body(grpc_code code, std::string_view message);

/// error_body() with the matching HTTP status.
[[nodiscard]] http_response error_response(grpc_code code,
                                           std::string_view message);

/// error_body() with an explicit HTTP status, for transport-level refusals
/// that have no gRPC twin (413 body too large, 405 wrong method).
[[nodiscard]] http_response
error_response(grpc_code code, std::string_view message, int http_status);

/// The gRPC code a det::errc maps to: not_found -> NotFound,
/// invalid_argument / invalid_event -> InvalidArgument, conflict -> Aborted,
/// store_unavailable / lock_held -> Unavailable, the rest -> Internal.
/// Errors of other categories map to Internal.
[[nodiscard]] grpc_code grpc_code_of(const caf::error& err);

/// error_response() for an error from an actor; the message is
/// det::render(err).
[[nodiscard]] http_response error_response(const caf::error& err);

/// One stream line (without the trailing newline): {"result":<json>}.
/// `result_json` must already be serialised JSON.
[[nodiscard]] std::string result_line(std::string_view result_json);

/// One mid-stream error line (without the trailing newline).
[[nodiscard]] std::string stream_error_line(grpc_code code,
                                            std::string_view message);

} // namespace det::http
