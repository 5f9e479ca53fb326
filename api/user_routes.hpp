#pragma once

// The user family's routes: every path under /api/v1/users, /api/v1/tokens,
// /api/v1/auth (login, logout) and /api/v1/me, as one table
// (api/route_table.hpp) in api/user_routes.cpp. The handlers are
// api_users.cpp's (users), api_auth.cpp's (login, logout), and the access
// tokens' and GET /api/v1/me beside the table.

#include "api/route_table.hpp"

namespace det::api {

/// The table, built on first use and constant afterwards.
const route_family& user_routes();

} // namespace det::api
