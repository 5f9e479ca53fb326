#pragma once

// det-inspect's output: each answer as aligned tables (the default) or as
// one JSON document (--json). Writes to stdout.

#include "inspect/views.hpp"
#include "state/cluster_state.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace det::inspect_cli {

/// A view's tables; a view with several tables titles each after the first.
std::string view_text(inspection::view_kind k, const nlohmann::json& view);

/// Event rows: position, time, stream, type and the payload (cut to one
/// line of at most `payload_width` characters; 0: not cut).
std::string events_text(const nlohmann::json& events, bool header,
                        size_t payload_width = 100);

/// inspection::summary() as a table of kind, total and counts by status.
std::string summary_text(const nlohmann::json& summary);

} // namespace det::inspect_cli
