#pragma once

// Request-target parsing with the upstream master's conventions: trailing
// slashes stripped (echo's RemoveTrailingSlash), query keys that repeat,
// percent-decoding with '+' as space in queries (Go's url.ParseQuery).
// Pure functions; malformed escapes are kept literally rather than refused.

#include "http/http_message.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace det::http {

/// Decodes %XX escapes; with `plus_as_space`, '+' becomes ' '. An invalid
/// escape ("%zz", a '%' at the end) is copied through unchanged.
[[nodiscard]] std::string percent_decode(std::string_view in,
                                         bool plus_as_space);

/// Parses "a=1&b=x%20y&a=2" (no leading '?'). Keys without '=' get an empty
/// value; empty pieces ("a=1&&b=2") are skipped.
[[nodiscard]] query_params parse_query(std::string_view query);

/// Strips trailing slashes ("/api/v1/x/" -> "/api/v1/x"); "/" and "" stay
/// "/". The path is not decoded: the router decodes segment by segment so
/// an escaped '/' stays inside its segment.
[[nodiscard]] std::string normalize_path(std::string_view path);

/// Splits a request target into path (normalised) and parsed query.
void split_target(std::string_view target, std::string& path,
                  query_params& query);

/// Splits "/a/b/c" into {"a","b","c"}; "/" gives {}.
[[nodiscard]] std::vector<std::string_view>
path_segments(std::string_view path);

} // namespace det::http
