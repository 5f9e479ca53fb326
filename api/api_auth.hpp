#pragma once

// Users, sessions and the authentication guard of the REST API.
//
// Every route but the tables' `anyone` rows (api/route_table.hpp: /info,
// GET /api/v1/master and POST /api/v1/auth/login) needs a principal: a user
// session ("Authorization: Bearer <token>" from POST /api/v1/auth/login) or a
// trial's allocation token (in "Grpc-Metadata-x-allocation-token: Bearer ..."
// as the upstream harness sends it, or in Authorization as det-agent does). No
// or unknown token: 401. An allocation token acts as the experiment's owner,
// but only on its own trial and allocation: a path naming another trial or
// allocation is refused with 403. Routes that need an admin answer 403 to
// others (require_admin).
//
// Users and sessions are events (user_created, user_password_changed,
// session_started, session_ended); a route appends through the master and
// waits for the durable acknowledgement before it updates the
// auth_directory and answers, so a restart keeps everyone logged in.

#include "api/api_context.hpp"
#include "api/route_table.hpp"
#include "http/router.hpp"

#include <caf/actor_system.hpp>

#include <string>

namespace det::api {

/// Installs the guard on `r`: a request to a route that is an `anyone` row
/// of one of `families` passes without a session (matched as the router
/// matches it); every other needs a principal. (The auth routes are rows
/// of api/user_routes.cpp.)
void add_auth_guard(http::router& r, std::shared_ptr<const api_context> ctx,
                    const std::vector<const route_family*>& families);

/// POST /api/v1/auth/login (public: the guard's list) and POST
/// /api/v1/auth/logout, rows of api/user_routes.cpp.
void login(const std::shared_ptr<const api_context>& ctx,
           const http::http_request& req, const http::responder& res);
void logout(const std::shared_ptr<const api_context>& ctx,
            const http::http_request& req, const http::responder& res);

/// True for an admin principal; otherwise answers 403 and returns false.
bool require_admin(const http::http_request& req, const http::responder& res);

/// Creates `admin` (admin) and `determined` if the log has no such users,
/// with `initial_password` (blank when empty); blocks until durable. Call
/// before serving. Returns an error text, or "" on success.
std::string ensure_default_users(caf::actor_system& sys, const api_context& ctx,
                                 const std::string& initial_password);

} // namespace det::api
