#pragma once

// Reading typed fields out of JSON objects with errors that name the field.
// nlohmann's own conversions say "type must be number, but is string"
// without saying where; these say "field 'slots': expected an integer, got
// string". Used by the event codec and the config loaders. Throws
// field_error; callers at a boundary convert it to a det error.

#include "util/text.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace det {

class field_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

namespace detail {

[[noreturn]] void throw_field_error(const char* key, const char* expected,
                                    const nlohmann::json& got);

template <class T> struct field_traits;

template <> struct field_traits<std::string> {
  static constexpr const char* name = "a string";
  static bool ok(const nlohmann::json& j) { return j.is_string(); }
};
template <> struct field_traits<int64_t> {
  static constexpr const char* name = "an integer";
  static bool ok(const nlohmann::json& j) { return j.is_number_integer(); }
};
template <> struct field_traits<int32_t> {
  static constexpr const char* name = "an integer";
  static bool ok(const nlohmann::json& j) {
    return j.is_number_integer() && j.get<int64_t>() >= INT32_MIN
           && j.get<int64_t>() <= INT32_MAX;
  }
};
template <> struct field_traits<double> {
  static constexpr const char* name = "a number";
  static bool ok(const nlohmann::json& j) { return j.is_number(); }
};
template <> struct field_traits<bool> {
  static constexpr const char* name = "a boolean";
  static bool ok(const nlohmann::json& j) { return j.is_boolean(); }
};
template <> struct field_traits<nlohmann::json> {
  static constexpr const char* name = "a value";
  static bool ok(const nlohmann::json&) { return true; }
};
template <> struct field_traits<std::vector<std::string>> {
  static constexpr const char* name = "a list of strings";
  static bool ok(const nlohmann::json& j) {
    if (!j.is_array())
      return false;
    for (const auto& x : j)
      if (!x.is_string())
        return false;
    return true;
  }
};
template <> struct field_traits<std::vector<int64_t>> {
  static constexpr const char* name = "a list of integers";
  static bool ok(const nlohmann::json& j) {
    if (!j.is_array())
      return false;
    for (const auto& x : j)
      if (!x.is_number_integer())
        return false;
    return true;
  }
};

} // namespace detail

/// `value` as a T, where `value` is field `key` of some object.
template <class T> T get_value(const nlohmann::json& value, const char* key) {
  if (!detail::field_traits<T>::ok(value))
    detail::throw_field_error(key, detail::field_traits<T>::name, value);
  return value.template get<T>();
}

/// The value of required field `key` of object `obj`.
template <class T> T get_field(const nlohmann::json& obj, const char* key) {
  auto i = obj.find(key);
  if (i == obj.end())
    throw field_error(std::string{"field '"} + key + "' is missing");
  return get_value<T>(*i, key);
}

/// The value of optional field `key`, or `fallback` when absent or null.
template <class T>
T get_field_or(const nlohmann::json& obj, const char* key, T fallback) {
  auto i = obj.find(key);
  if (i == obj.end() || i->is_null())
    return fallback;
  return get_value<T>(*i, key);
}

/// Requires `obj` to be a JSON object; `what` names it in the error.
void require_object(const nlohmann::json& obj, const char* what);

/// How deep a document from a client may nest. Every walk over one
/// (rendering it included) recurses, so this bounds the stack.
inline constexpr int max_json_depth = 64;

/// Why `value`, field `path` of a client's document, cannot be kept, as
/// "field 'config.hyperparameters.lr': contains a NUL character at byte
/// 3"; "" when it can. Refused: a string or object key that is not UTF-8
/// or holds a NUL (jsonb cannot), a number that is not finite (it would be
/// stored as null), nesting deeper than max_json_depth. Lengths are the
/// business of the field's own check and of the body limit. With an empty
/// `path` the document's own keys name the fields ("field 'name': ...").
/// With `key_rules`, every object key must also keep them (a config's
/// keys are names: one short line).
[[nodiscard]] std::string
json_problem(const nlohmann::json& value, const std::string& path,
             const util::text_rules* key_rules = nullptr);

} // namespace det
