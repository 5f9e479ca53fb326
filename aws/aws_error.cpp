#include "aws/aws_error.hpp"

#include "messages/errc.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <iterator>

namespace det::aws {

namespace {

template <size_t N>
bool one_of(std::string_view code, const char* (&codes)[N]) {
  return std::any_of(std::begin(codes), std::end(codes),
                     [&](const char* c) { return code == c; });
}

constexpr aws_error_kind all_kinds[] = {aws_error_kind::none,
                                        aws_error_kind::throttling,
                                        aws_error_kind::insufficient_capacity,
                                        aws_error_kind::quota,
                                        aws_error_kind::auth,
                                        aws_error_kind::bad_request,
                                        aws_error_kind::not_found,
                                        aws_error_kind::server_error,
                                        aws_error_kind::transport};

} // namespace

const char* to_string(aws_error_kind kind) {
  switch (kind) {
  case aws_error_kind::none:
    return "none";
  case aws_error_kind::throttling:
    return "throttling";
  case aws_error_kind::insufficient_capacity:
    return "insufficient_capacity";
  case aws_error_kind::quota:
    return "quota";
  case aws_error_kind::auth:
    return "auth";
  case aws_error_kind::bad_request:
    return "bad_request";
  case aws_error_kind::not_found:
    return "not_found";
  case aws_error_kind::server_error:
    return "server_error";
  case aws_error_kind::transport:
    return "transport";
  }
  return "none";
}

aws_error_kind classify_aws_code(std::string_view code, long http_status) {
  static const char* throttling[] = {
      "RequestLimitExceeded",      "Throttling",
      "ThrottlingException",       "RequestThrottled",
      "TooManyRequestsException",  "SlowDown",
      "RequestThrottledException", "PriorRequestNotComplete"};
  static const char* capacity[] = {"InsufficientInstanceCapacity",
                                   "InsufficientHostCapacity",
                                   "InsufficientAddressCapacity",
                                   "InsufficientFreeAddressesInSubnet",
                                   "InsufficientCapacity",
                                   "InsufficientReservedInstanceCapacity",
                                   "Unsupported",
                                   "UnfulfillableCapacity",
                                   "SpotMaxPriceTooLow",
                                   "ReservationCapacityExceeded",
                                   "MaxFleetCountExceeded"};
  static const char* quota[] = {"VcpuLimitExceeded",
                                "InstanceLimitExceeded",
                                "MaxSpotInstanceCountExceeded",
                                "ResourceCountExceeded",
                                "RequestResourceCountExceeded",
                                "TagLimitExceeded",
                                "ResourceLimitExceeded",
                                "LimitExceeded",
                                "AddressLimitExceeded",
                                "VolumeLimitExceeded"};
  static const char* auth[] = {"AuthFailure",
                               "UnauthorizedOperation",
                               "SignatureDoesNotMatch",
                               "IncompleteSignature",
                               "InvalidClientTokenId",
                               "AccessDenied",
                               "MissingAuthenticationToken",
                               "RequestExpired",
                               "OptInRequired",
                               "Blocked",
                               "ExpiredToken",
                               "AccessDeniedException",
                               "UnrecognizedClientException",
                               "PendingVerification"};
  static const char* server[] = {"InternalError",
                                 "InternalFailure",
                                 "ServerInternal",
                                 "ServiceUnavailable",
                                 "Unavailable",
                                 "ServiceUnavailableException",
                                 "InsufficientCapacityOnHost"};
  static const char* not_found_codes[] = {"NoSuchEntity", "NotFound"};
  if (one_of(code, throttling))
    return aws_error_kind::throttling;
  if (one_of(code, capacity))
    return aws_error_kind::insufficient_capacity;
  if (one_of(code, quota))
    return aws_error_kind::quota;
  if (one_of(code, auth))
    return aws_error_kind::auth;
  if (one_of(code, server))
    return aws_error_kind::server_error;
  // "InvalidInstanceID.NotFound", "InvalidAMIID.NotFound", ...
  if (util::ends_with(code, ".NotFound") || one_of(code, not_found_codes))
    return aws_error_kind::not_found;
  if (http_status >= 500)
    return aws_error_kind::server_error;
  if (http_status == 429)
    return aws_error_kind::throttling;
  return aws_error_kind::bad_request;
}

bool is_retryable(aws_error_kind kind) {
  return kind == aws_error_kind::throttling
         || kind == aws_error_kind::server_error
         || kind == aws_error_kind::transport;
}

caf::error make_aws_error(aws_error_kind kind, const std::string& code,
                          const std::string& context,
                          const std::string& message) {
  std::string text = "[";
  text += to_string(kind);
  text += ' ';
  text += code.empty() ? "-" : code;
  text += "] ";
  text += context;
  if (!message.empty()) {
    text += ": ";
    text += message;
  }
  return make_error(errc::remote_error, std::move(text));
}

std::string error_text(const caf::error& err) {
  const auto& ctx = err.context();
  if (code_of(err) != errc::none && ctx.size() == 1
      && ctx.match_element<std::string>(0))
    return ctx.get_as<std::string>(0);
  return render(err);
}

aws_error_info aws_error_of(const caf::error& err) {
  if (code_of(err) != errc::remote_error)
    return {};
  const auto& ctx = err.context();
  if (ctx.size() != 1 || !ctx.match_element<std::string>(0))
    return {};
  std::string_view text = ctx.get_as<std::string>(0);
  if (text.empty() || text.front() != '[')
    return {};
  auto space = text.find(' ');
  auto close = text.find(']');
  if (space == std::string_view::npos || close == std::string_view::npos
      || space > close)
    return {};
  auto kind_name = text.substr(1, space - 1);
  for (auto k : all_kinds) {
    if (kind_name == to_string(k)) {
      auto code = std::string(text.substr(space + 1, close - space - 1));
      return {k, code == "-" ? std::string{} : code};
    }
  }
  return {};
}

} // namespace det::aws
