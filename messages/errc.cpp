#include "messages/errc.hpp"

#include <caf/deep_to_string.hpp>

namespace det {

const char* to_string(errc x) {
  switch (x) {
  case errc::none:
    return "none";
  case errc::conflict:
    return "conflict";
  case errc::store_unavailable:
    return "store_unavailable";
  case errc::lock_held:
    return "lock_held";
  case errc::schema_too_new:
    return "schema_too_new";
  case errc::invalid_event:
    return "invalid_event";
  case errc::unknown_event_type:
    return "unknown_event_type";
  case errc::corrupt_snapshot:
    return "corrupt_snapshot";
  case errc::invalid_argument:
    return "invalid_argument";
  case errc::not_found:
    return "not_found";
  case errc::invariant_violated:
    return "invariant_violated";
  case errc::remote_error:
    return "remote_error";
  case errc::failed_precondition:
    return "failed_precondition";
  case errc::permission_denied:
    return "permission_denied";
  }
  return "unknown_error";
}

errc code_of(const caf::error& err) {
  if (!err || err.category() != caf::atom("det"))
    return errc::none;
  return static_cast<errc>(err.code());
}

std::string render(const caf::error& err) {
  if (!err)
    return "no error";
  if (err.category() != caf::atom("det"))
    return caf::to_string(err);
  std::string out = to_string(static_cast<errc>(err.code()));
  const auto& ctx = err.context();
  if (ctx.size() == 1 && ctx.match_element<std::string>(0)) {
    out += ": ";
    out += ctx.get_as<std::string>(0);
  } else if (!ctx.empty()) {
    out += ": ";
    out += caf::deep_to_string(ctx);
  }
  return out;
}

} // namespace det
