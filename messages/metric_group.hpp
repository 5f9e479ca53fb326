#pragma once

// What may name a metric group ("training", "validation", or any group a
// trial reports with core.train.report_metrics(group=...)). Upstream keeps
// any group but an empty one and one containing '.', since a metric id is
// "group.name"; we also keep a group's name storable and quotable in an
// index row and an error message: at most 255 bytes of UTF-8 without
// control characters. The one rule for the API's boundary, the core's
// commands and the event's validate(), so none accepts what another
// refuses. Pure; any thread.

#include "util/text.hpp"

#include <string>
#include <string_view>

namespace det {

/// The most bytes a metric group's name may take.
constexpr size_t max_metric_group_bytes = 255;

/// Why `group` cannot name a metric group, as a phrase to follow the
/// field's name ("must not be empty", "contains '.' at byte 3", "is not
/// UTF-8 at byte 0"); "" when it can.
[[nodiscard]] inline std::string metric_group_problem(std::string_view group) {
  auto why = util::text_problem(
      group, util::text_rules{max_metric_group_bytes, false, false});
  if (!why.empty())
    return why;
  if (auto dot = group.find('.'); dot != std::string_view::npos)
    return "contains '.' at byte " + std::to_string(dot)
           + " (a metric id is group.name)";
  return {};
}

} // namespace det
