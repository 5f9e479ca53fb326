#pragma once

// RFC 3339 time stamps, the form the REST API writes and reads
// ("2026-11-24T21:40:00.123456Z", "2026-11-24T22:40:00+01:00").

#include <cstdint>
#include <optional>
#include <string>

namespace det::util {

/// Microseconds since the Unix epoch as UTC with six fraction digits; ""
/// for 0 or less (not set).
std::string format_rfc3339(int64_t at_us);

/// The same time as upstream's JSON gateway writes a protobuf Timestamp:
/// no fraction when it is zero, else 3 or 6 digits, as few as keep it
/// ("2035-01-01T22:00:00Z", "...:00.120Z", "...:00.123456Z"); "" for 0
/// or less.
std::string format_rfc3339_trimmed(int64_t at_us);

/// Reads "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)" (a lower-case
/// 't'/'z' too) as microseconds since the epoch; nullopt for anything else.
std::optional<int64_t> parse_rfc3339(const std::string& text);

} // namespace det::util
