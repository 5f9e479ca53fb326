#pragma once

// Aligned text tables for det-inspect: a header row, then one row per
// record, columns separated by two spaces and padded to the widest cell
// (UTF-8 aware), numbers right-aligned. Pure functions.

#include "inspect/views.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace det::inspection {

/// The text of one JSON cell: strings as is, integers plainly, other
/// numbers with up to 6 significant digits, booleans "yes"/"no", null "-",
/// arrays and objects as compact JSON. Newlines become spaces.
std::string cell_text(const nlohmann::json& v);

/// `rows` aligned under `headers`; every line ends with '\n'.
/// `right` (optional, per column) right-aligns a column.
std::string format_table(const std::vector<std::string>& headers,
                         const std::vector<std::vector<std::string>>& rows,
                         const std::vector<bool>& right = {});

/// `rows` (an array of flat objects) as a table of `columns`; numeric
/// columns are right-aligned. "(none)\n" when there are no rows.
std::string format_rows(const nlohmann::json& rows,
                        const std::vector<column>& columns);

/// Cuts `s` to at most `width` characters, ending in "..." when cut.
std::string truncate(const std::string& s, size_t width);

} // namespace det::inspection
