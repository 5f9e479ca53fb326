#pragma once

// A resource family's routes as data: one row per (method, path), naming
// the handler and who may call it (the guard's public routes are the rows
// marked `anyone`). A family's file (experiment_routes.cpp,
// ...) holds its table, so a route is found from its URL in one place, and
// tests/api/route_table_test.cpp checks docs/api.md's route table against
// every family's rows.
//
// add_routes() registers a table on the router before it serves (the
// router's rules: a duplicate or malformed row is reported by
// router::error(), not added). Handlers run on an I/O thread as any route
// does; the registration adds only the check its row's access asks the
// table to enforce.

#include "api/api_context.hpp"
#include "http/router.hpp"

#include <memory>
#include <string_view>
#include <vector>

namespace det::api {

/// Who may call a route. The guard (api_auth.cpp) decides `anyone` and
/// `signed_in` before any route runs; the other two are checked after it.
enum class access {
  /// No session needed: the guard (add_auth_guard in api_auth.hpp) lets
  /// a request to an `anyone` row through as it is (no principal). Today
  /// /info, GET /api/v1/master and the login.
  anyone,
  /// Any principal the guard admits: a user's session, a task owner's
  /// token, or a trial's allocation token within its own trial, allocation
  /// and experiment (the guard answers 401 or 403 otherwise).
  signed_in,
  /// As signed_in, but the handler refuses a trial's allocation token with
  /// 403 in its own words (after its own request checks, so the table does
  /// not: the order of the answers is the route's).
  users_only,
  /// Admins only: add_routes() answers others 403 (require_admin) before
  /// the handler runs.
  admin,
};

/// "anyone", "signed_in", "users_only", "admin".
std::string_view to_string(access a);

using route_ctx = std::shared_ptr<const api_context>;

/// A route's handler: decodes the request and answers through `res` (now
/// or later, from the bridge); never blocks.
using route_fn = void (*)(const route_ctx& ctx, const http::http_request& req,
                          const http::responder& res);

/// How the guard checks a trial's allocation token on a row.
enum class token_check {
  /// On a read replica, for every request: the token's allocation must be
  /// live at the newest published position.
  live,
  /// A token the guard has checked before (its cache) goes straight to
  /// the handler, without a replica's read: the row's only effect is a
  /// command the master decides against its own state, refusing an
  /// allocation that is no longer live (the handler then answers 401 as
  /// the guard would). Saves a trial's hottest write (its metric reports)
  /// a hand-off to a replica and back.
  by_master,
};

struct route_row {
  std::string_view method; ///< "GET", "POST", "PUT", "PATCH", "DELETE"
  std::string_view path;   ///< a router pattern: "/api/v1/experiments/{id}"
  route_fn handler;
  access who;
  token_check tokens = token_check::live;
};

/// A family's table and where it lives, for the docs check: docs/api.md
/// names `file` in the "served by" column of each of the family's rows,
/// and every documented route under one of `prefixes` is in `rows`.
struct route_family {
  std::string_view file; ///< "experiment_routes" (api/experiment_routes.cpp)
  std::vector<std::string_view> prefixes; ///< "/api/v1/experiments", ...
  std::vector<route_row> rows;
};

/// Registers every row of `rows` on `r`, each handler called with `ctx`.
void add_routes(http::router& r, const route_ctx& ctx,
                const std::vector<route_row>& rows);

/// True when `path` is `prefix` or lies below it ("/a" holds "/a/b", not
/// "/ab").
bool under_prefix(std::string_view path, std::string_view prefix);

} // namespace det::api
