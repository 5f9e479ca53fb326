#include "messages/json_fields.hpp"

#include "util/text.hpp"

#include <cmath>

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

namespace {

// jsonb holds any string of UTF-8 characters but NUL (control characters
// are escaped); that is all a value inside a document must be.
std::string string_problem(std::string_view text) {
  auto at = util::utf8_error_at(text);
  if (at != std::string_view::npos)
    return "is not UTF-8 at byte " + std::to_string(at);
  if (auto nul = text.find('\0'); nul != std::string_view::npos)
    return "contains a NUL character at byte " + std::to_string(nul);
  return {};
}

std::string walk(const nlohmann::json& v, const std::string& path, int depth,
                 const util::text_rules* key_rules) {
  auto named = [&](const std::string& why) {
    return path.empty() ? "the document " + why
                        : "field '" + path + "': " + why;
  };
  if (depth > max_json_depth)
    return named("nests deeper than " + std::to_string(max_json_depth)
                 + " levels");
  switch (v.type()) {
  case nlohmann::json::value_t::string:
    if (auto why = string_problem(v.get_ref<const std::string&>());
        !why.empty())
      return named(why);
    return {};
  case nlohmann::json::value_t::number_float:
    if (!std::isfinite(v.get<double>()))
      return named("is not a finite number");
    return {};
  case nlohmann::json::value_t::object:
    for (const auto& [key, item] : v.items()) {
      if (auto why = string_problem(key); !why.empty())
        return named("has a key that " + why);
      if (key_rules != nullptr)
        if (auto why = util::text_problem(key, *key_rules); !why.empty())
          return named("has a key that " + why);
      // A key in an error is cut: the message must not echo a megabyte.
      auto shown = key.size() > 64 ? util::valid_utf8(key, 64) + "..." : key;
      auto at = path.empty() ? shown : path + "." + shown;
      if (auto why = walk(item, at, depth + 1, key_rules); !why.empty())
        return why;
    }
    return {};
  case nlohmann::json::value_t::array: {
    size_t i = 0;
    for (const auto& item : v) {
      auto at = path + "[" + std::to_string(i++) + "]";
      if (auto why = walk(item, at, depth + 1, key_rules); !why.empty())
        return why;
    }
    return {};
  }
  default:
    return {};
  }
}

} // namespace

std::string json_problem(const nlohmann::json& value, const std::string& path,
                         const util::text_rules* key_rules) {
  return walk(value, path, 1, key_rules);
}

} // namespace det
