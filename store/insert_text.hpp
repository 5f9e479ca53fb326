#pragma once

// SQL text literals for statements that carry their values inline (the
// log archive's multi-row INSERTs), so a whole batch travels in one
// message. Escape-string literals (E'...') read the same whatever
// standard_conforming_strings says. The event log's appends go by COPY
// (store/copy_text.hpp).

#include <string>

namespace det {

/// Appends `text` to `sql` as an escape-string literal: E'...' with
/// backslashes and single quotes doubled.
void append_sql_literal(std::string& sql, const std::string& text);

} // namespace det
