#pragma once

// The append's one statement: INSERT INTO events (...) VALUES (...), ...
// with every value a literal, so a whole batch travels in one message and
// commits in one round trip. Escape-string literals (E'...') read the same
// whatever standard_conforming_strings says.

#include "messages/event.hpp"

#include <cstdint>
#include <string>

namespace det {

/// Appends `text` to `sql` as an escape-string literal: E'...' with
/// backslashes and single quotes doubled.
void append_sql_literal(std::string& sql, const std::string& text);

/// Starts the INSERT: the column list up to VALUES.
void append_insert_prefix(std::string& sql);

/// Appends one row's tuple, preceded by a comma unless it is the first.
void append_insert_row(std::string& sql, int64_t position, const new_event& ev,
                       int64_t stream_version);

} // namespace det
