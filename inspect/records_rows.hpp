#pragma once

// det-inspect's `records` view: the user's workspaces, projects, config
// templates, registered models (with their versions) and webhooks (with
// their deliveries still due), one table each.
// Part of inspect/views.cpp's view(); pure functions of the state.

#include "inspect/views.hpp"

namespace det::inspection {

/// {"workspaces": [...], "projects": [...], "templates": [...],
///  "models": [...], "webhooks": [...]}.
nlohmann::json record_rows(const state::cluster_state& s);

/// The tables' columns, in print order.
std::vector<std::pair<std::string, std::vector<column>>> record_tables();

} // namespace det::inspection
