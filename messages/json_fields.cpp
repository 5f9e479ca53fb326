#include "messages/json_fields.hpp"

namespace det {

namespace detail {

void throw_field_error(const char* key, const char* expected,
                       const nlohmann::json& got) {
  throw field_error(std::string{"field '"} + key + "': expected " + expected
                    + ", got " + got.type_name());
}

} // namespace detail

void require_object(const nlohmann::json& obj, const char* what) {
  if (!obj.is_object())
    throw field_error(std::string{what} + ": expected an object, got "
                      + obj.type_name());
}

} // namespace det
