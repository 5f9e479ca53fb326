#pragma once

// What the account routes share (api_auth.cpp: login and the guard;
// api_users.cpp: users; user_routes.cpp: access tokens;
// api_cluster_message.cpp: the cluster message): writing an account event
// through the master, and the upstream JSON of a user.

#include "api/api_context.hpp"
#include "api/auth_directory.hpp"
#include "http/router.hpp"
#include "util/text.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>

namespace det::api {

/// Now, from the context's wall clock.
int64_t wall_now_us(const api_context& ctx);

/// v1User.
nlohmann::json user_json(const user_record& u);

/// A user name: one line, at most 128 bytes, no control characters.
inline const util::text_rules user_name_rules{128, false, false};

/// A string field under its camelCase or snake_case name; null is absent.
std::string str_field(const nlohmann::json& j, const char* camel,
                      const char* snake);
bool bool_field(const nlohmann::json& j, const char* camel, const char* snake,
                bool fallback);

/// Has the master decide `ev` (master_core::change_users, against its own
/// state); once durable, applies the event written to the directory and
/// calls `then` with it (the core numbers access tokens). A refusal is
/// answered on `res`.
void record_account(const std::shared_ptr<const api_context>& ctx,
                    domain_event ev, http::responder res,
                    std::function<void(const domain_event&)> then);

/// The same, for callers that need nothing of the event written.
inline void record(const std::shared_ptr<const api_context>& ctx,
                   domain_event ev, http::responder res,
                   std::function<void()> then) {
  record_account(ctx, std::move(ev), std::move(res),
                 [then = std::move(then)](const domain_event&) { then(); });
}

/// Hashes `client_hash_hex` for storage on the password worker (never on
/// an I/O thread), then runs `then` there with the stored form; a full
/// queue answers 503 on `res`.
void with_stored_password(const std::shared_ptr<const api_context>& ctx,
                          const http::responder& res,
                          std::string client_hash_hex,
                          std::function<void(std::string)> then);

/// The cluster message in force now ({message, startTime, endTime,
/// createdTime}): null when none is set, before its startTime and from
/// its endTime on.
nlohmann::json active_cluster_message(const api_context& ctx,
                                      const state::cluster_state& s);

/// Checks a text field; answers 400 naming `field` and returns false.
bool text_ok(const http::responder& res, const std::string& field,
             const std::string& value, const util::text_rules& rules);

/// The user routes (api_users.cpp), rows of api/user_routes.cpp:
/// GET and POST /api/v1/users (creating: admins, refused in the
/// handler's words), GET and PATCH /api/v1/users/{user_id} (400 naming
/// userId for a bad id), GET /api/v1/users/{username}/by-username.
void list_users(const std::shared_ptr<const api_context>& ctx,
                const http::http_request& req, const http::responder& res);
void create_user(const std::shared_ptr<const api_context>& ctx,
                 const http::http_request& req, const http::responder& res);
void get_user(const std::shared_ptr<const api_context>& ctx,
              const http::http_request& req, const http::responder& res);
void patch_user(const std::shared_ptr<const api_context>& ctx,
                const http::http_request& req, const http::responder& res);
void get_user_by_name(const std::shared_ptr<const api_context>& ctx,
                      const http::http_request& req,
                      const http::responder& res);

/// GET, PUT and DELETE /api/v1/master/cluster_message
/// (api_cluster_message.cpp), rows of api/cluster_routes.cpp: admins only,
/// refused 403 in their own words ("user does not have permission").
void get_cluster_message(const std::shared_ptr<const api_context>& ctx,
                         const http::http_request& req,
                         const http::responder& res);
void set_cluster_message(const std::shared_ptr<const api_context>& ctx,
                         const http::http_request& req,
                         const http::responder& res);
void delete_cluster_message(const std::shared_ptr<const api_context>& ctx,
                            const http::http_request& req,
                            const http::responder& res);

} // namespace det::api
