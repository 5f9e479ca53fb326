#pragma once

// PostgreSQL's COPY text format: one line per row, fields separated by
// tabs, \N for NULL, backslash escapes (\\ \t \n \r \b \f \v, octal \ooo,
// hex \xhh). The event log is read through COPY ... TO STDOUT, several
// times faster than row-by-row results, and appended through COPY ... FROM
// STDIN, which the server takes at a fraction of the cost of parsing and
// planning a multi-row INSERT of literals.

#include "messages/event.hpp"

#include <caf/error.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace det {

/// Splits `line` into unescaped fields. A NULL field becomes "" and sets
/// the matching entry of `nulls`.
void split_copy_line(std::string_view line, std::vector<std::string>& fields,
                     std::vector<bool>& nulls);

/// Parses one row of (position, stream_id, stream_version, type,
/// schema_version, payload, recorded_at_us) into `out`. Fails with
/// errc::invalid_event naming the row when a field is missing or not a
/// number.
[[nodiscard]] caf::error parse_event_line(std::string_view line,
                                          recorded_event& out);

/// Appends one events row (position, stream_id, stream_version, type,
/// schema_version, payload) to `out`, escaped, with no newline.
void append_copy_row(std::string& out, int64_t position, const new_event& ev,
                     int64_t stream_version);

} // namespace det
