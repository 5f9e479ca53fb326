#include "http/grpc_error.hpp"

#include "messages/errc.hpp"

#include <nlohmann/json.hpp>

namespace det::http {

int http_status_of(grpc_code code) {
  switch (code) {
  case grpc_code::ok:
    return 200;
  case grpc_code::cancelled:
    return 408;
  case grpc_code::invalid_argument:
  case grpc_code::failed_precondition:
  case grpc_code::out_of_range:
    return 400;
  case grpc_code::deadline_exceeded:
    return 504;
  case grpc_code::not_found:
    return 404;
  case grpc_code::already_exists:
  case grpc_code::aborted:
    return 409;
  case grpc_code::permission_denied:
    return 403;
  case grpc_code::unauthenticated:
    return 401;
  case grpc_code::resource_exhausted:
    return 429;
  case grpc_code::unimplemented:
    return 501;
  case grpc_code::unavailable:
    return 503;
  case grpc_code::unknown:
  case grpc_code::internal:
  case grpc_code::data_loss:
    return 500;
  }
  return 500;
}

const char* reason_of(grpc_code code) {
  switch (code) {
  case grpc_code::ok:
    return "OK";
  case grpc_code::cancelled:
    return "Canceled";
  case grpc_code::unknown:
    return "Unknown";
  case grpc_code::invalid_argument:
    return "InvalidArgument";
  case grpc_code::deadline_exceeded:
    return "DeadlineExceeded";
  case grpc_code::not_found:
    return "NotFound";
  case grpc_code::already_exists:
    return "AlreadyExists";
  case grpc_code::permission_denied:
    return "PermissionDenied";
  case grpc_code::resource_exhausted:
    return "ResourceExhausted";
  case grpc_code::failed_precondition:
    return "FailedPrecondition";
  case grpc_code::aborted:
    return "Aborted";
  case grpc_code::out_of_range:
    return "OutOfRange";
  case grpc_code::unimplemented:
    return "Unimplemented";
  case grpc_code::internal:
    return "Internal";
  case grpc_code::unavailable:
    return "Unavailable";
  case grpc_code::data_loss:
    return "DataLoss";
  case grpc_code::unauthenticated:
    return "Unauthenticated";
  }
  return "Internal";
}

std::string error_body(grpc_code code, std::string_view message) {
  if (code == grpc_code::unknown)
    code = grpc_code::internal;
  nlohmann::json j;
  j["error"] = {{"code", static_cast<int>(code)},
                {"reason", reason_of(code)},
                {"error", std::string{message}}};
  // Replace, don't throw, on invalid UTF-8 in a message we did not write.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

http_response error_response(grpc_code code, std::string_view message) {
  return error_response(code, message, http_status_of(code));
}

http_response error_response(grpc_code code, std::string_view message,
                             int http_status) {
  return http_response::json(http_status, error_body(code, message));
}

grpc_code grpc_code_of(const caf::error& err) {
  if (!err)
    return grpc_code::ok;
  switch (det::code_of(err)) {
  case errc::not_found:
    return grpc_code::not_found;
  case errc::invalid_argument:
  case errc::invalid_event:
    return grpc_code::invalid_argument;
  case errc::conflict:
    return grpc_code::aborted;
  case errc::failed_precondition:
    return grpc_code::failed_precondition;
  case errc::permission_denied:
    return grpc_code::permission_denied;
  case errc::store_unavailable:
  case errc::lock_held:
    return grpc_code::unavailable;
  default:
    return grpc_code::internal;
  }
}

http_response error_response(const caf::error& err) {
  return error_response(grpc_code_of(err), det::render(err));
}

std::string result_line(std::string_view result_json) {
  std::string out;
  out.reserve(result_json.size() + 11);
  out += "{\"result\":";
  out += result_json;
  out += '}';
  return out;
}

std::string stream_error_line(grpc_code code, std::string_view message) {
  if (code == grpc_code::unknown)
    code = grpc_code::internal;
  int http = http_status_of(code);
  nlohmann::json j;
  j["error"] = {{"grpcCode", static_cast<int>(code)},
                {"httpCode", http},
                {"message", std::string{message}},
                {"httpStatus", status_text(http)},
                {"details", nlohmann::json::array()}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace det::http
