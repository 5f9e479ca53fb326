#pragma once

// A reader of event payloads that builds no JSON tree for the payload
// itself: the payload's members are split as raw text, and each field is
// read from its text straight into the event's member (a document field,
// such as a metric report's metrics, still becomes an nlohmann::json).
// messages/events.cpp drives it with each event's fields().
//
// Contract: it reads the common case only and says so when it does not.
// Every function returns false ("not taken") for anything it does not
// read exactly as nlohmann::json::parse plus messages/json_fields.hpp
// would: malformed JSON, a wrong type, a duplicate or unknown top-level
// key, text that is not UTF-8 (overlong forms, surrogates, beyond
// U+10FFFF) or a \u escape of half a surrogate pair, numbers that do not
// fit 64 bits or overflow a double, nesting deeper than max_depth, a
// UTF-8 byte order mark. UTF-8 text and \u escapes of any other code
// point (a pair for one above U+FFFF) are read as the tree reads them.
// The caller then decodes with the tree, which accepts or refuses with
// its own error. When it returns true the value is the one the tree
// decoder gives, to the number's type (unsigned, signed, floating) inside
// documents.

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace det::payload_scan {

/// How deep a document field may nest before the reader gives it up.
inline constexpr int max_depth = 32;

/// One top-level member: its key (no escapes) and its value's raw text.
struct member {
  std::string_view key;
  std::string_view value;
  bool used = false;
};

/// The members of a payload, at most `capacity` of them.
struct members {
  static constexpr size_t capacity = 32;
  std::array<member, capacity> items;
  size_t size = 0;
  /// The member named `key`, or null; marks it used.
  member* take(const char* key);
  /// Whether every member was taken.
  bool all_used() const;
};

/// Splits `text`, one JSON object with whitespace around it, into its
/// members. False for anything else and for a key seen twice.
bool split_object(std::string_view text, members& out);

/// Splits `text`, one JSON array, into its items' raw text.
bool split_array(std::string_view text, std::vector<std::string_view>& out);

/// The literal null (the value of an absent optional field).
bool is_null(std::string_view v);

// Each reads the whole of `v` as the type json_fields.hpp's get_value<T>
// accepts, converting as it converts.
bool read(std::string_view v, std::string& out);
bool read(std::string_view v, int64_t& out);
bool read(std::string_view v, int32_t& out);
bool read(std::string_view v, double& out);
bool read(std::string_view v, bool& out);
bool read(std::string_view v, nlohmann::json& out);
bool read(std::string_view v, std::vector<std::string>& out);
bool read(std::string_view v, std::vector<int64_t>& out);

} // namespace det::payload_scan
