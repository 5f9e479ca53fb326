#pragma once

// Durations in config files, written as Go's time.ParseDuration accepts
// them (upstream master.yaml uses Go durations): "5m", "30s", "1h30m",
// "1.5h", "250ms". A bare number is seconds (what det-deploy and several
// upstream fields use).

#include "messages/errc.hpp"

#include <caf/expected.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace det::conf {

/// Parses a duration string; the units are h, m, s, ms, us (or µs), ns.
/// Fails with errc::invalid_argument naming the problem ("unknown unit
/// 'd'", "missing unit", "empty") but not the field: the caller adds it.
/// Sub-millisecond remainders are truncated.
[[nodiscard]] caf::expected<std::chrono::milliseconds>
parse_duration(std::string_view text);

/// The shortest string parse_duration reads back to `d`: "20m", "1h30m",
/// "1m30s", "250ms", "0s".
std::string format_duration(std::chrono::milliseconds d);

} // namespace det::conf
