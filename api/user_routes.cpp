// Long-lived access tokens (det token ...), GET /api/v1/me, and the user
// family's table at the end (api/user_routes.hpp). A token's change is an
// account event the master decides (master_core::change_users); the route
// answers once it is durable.

#include "api/user_routes.hpp"

#include "api/account_records.hpp"
#include "api/api_auth.hpp"
#include "api/auth_crypto.hpp"
#include "api/route_util.hpp"
#include "api/views.hpp"
#include "conf/duration.hpp"
#include "http/grpc_error.hpp"
#include "messages/json_fields.hpp"
#include "util/log.hpp"

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::http_request;
using http::responder;

/// A token's description: one line, no control characters.
const util::text_rules description_rules{1024, false, true};

/// Access tokens live 30 days unless asked otherwise; at most a year.
constexpr int64_t day_us = 24LL * 3600 * 1000000;
constexpr int64_t default_token_life_us = 30 * day_us;
constexpr int64_t max_token_life_us = 365 * day_us;

json token_json(const api_context& ctx, const state::access_token_info& t) {
  auto u = ctx.auth->find(t.username);
  return {{"id", t.id},
          {"userId", u ? u->id : 0},
          {"description", t.description},
          {"createdAt", rfc3339(t.created_at_us)},
          {"expiry", t.expires_at_us == 0 ? json(nullptr)
                                          : json(rfc3339(t.expires_at_us))},
          {"revoked", t.revoked},
          {"tokenType", "TOKEN_TYPE_ACCESS_TOKEN"}};
}

/// A token's lifespan: a Go duration ("720h"), "-1" for the longest; none
/// for the default.
std::optional<int64_t> lifespan_us(const json& body, const responder& res) {
  auto v = body.find("lifespan");
  if (v == body.end() || v->is_null())
    return default_token_life_us;
  if (!v->is_string()) {
    res.send_error(grpc_code::invalid_argument,
                   "lifespan: expected a duration such as \"720h\"");
    return std::nullopt;
  }
  auto text = v->get<std::string>();
  if (text == "-1")
    return max_token_life_us;
  auto d = conf::parse_duration(text);
  if (!d || d->count() <= 0 || d->count() * 1000 > max_token_life_us) {
    res.send_error(grpc_code::invalid_argument,
                   "lifespan: '" + util::fit_text(text, {64, false, true})
                       + "' is not a duration from 1ms to 8760h");
    return std::nullopt;
  }
  return d->count() * 1000;
}

void create_token(const ctx_ptr& ctx, const http_request& req,
                  const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto uid = body->find("userId");
  if (uid == body->end() || !uid->is_number_integer())
    return res.send_error(grpc_code::invalid_argument,
                          "userId: required (a user id)");
  auto u = ctx->auth->find_id(uid->get<int64_t>());
  if (!u)
    return res.send_error(grpc_code::not_found,
                          "user " + std::to_string(uid->get<int64_t>())
                              + " not found");
  if (u->username != req.principal.username && !req.principal.admin)
    return res.send_error(grpc_code::permission_denied,
                          "only an admin may create another user's token");
  auto description = str_field(*body, "description", "description");
  if (!text_ok(res, "description", description, description_rules))
    return;
  auto life = lifespan_us(*body, res);
  if (!life)
    return;
  auto token = new_token();
  auto now = wall_now_us(*ctx);
  access_token_created ev{0,           u->username, token_hash(token),
                          description, now + *life, req.principal.username,
                          now};
  record_account(ctx, ev, res, [res, token](const domain_event& written) {
    auto id = std::get<access_token_created>(written).token_id;
    log::info() << "access token " << id << " created";
    res.send_json(json{{"token", token}, {"tokenId", id}}.dump());
  });
}

void list_tokens(const ctx_ptr& ctx, const http_request& req,
                 const responder& res) {
  auto username = req.query.get("username").value_or("");
  auto inactive = req.query.get("showInactive").value_or("") == "true";
  std::vector<int64_t> ids;
  for (const auto& v : req.query.get_all("tokenIds")) {
    auto id = positive_id(v);
    if (!id)
      return res.send_error(grpc_code::invalid_argument,
                            "tokenIds: not a valid id: '"
                                + util::fit_text(v, {64, false, true}) + "'");
    ids.push_back(*id);
  }
  auto now = wall_now_us(*ctx);
  json list = json::array();
  for (const auto& t : ctx->auth->access_tokens()) {
    if (!req.principal.admin && t.username != req.principal.username)
      continue;
    if (!username.empty() && t.username != username)
      continue;
    if (!ids.empty() && std::find(ids.begin(), ids.end(), t.id) == ids.end())
      continue;
    bool live = !t.revoked && (t.expires_at_us == 0 || now < t.expires_at_us);
    if (!live && !inactive && ids.empty())
      continue;
    list.push_back(token_json(*ctx, t));
  }
  auto p = page_of(req, res);
  if (!p)
    return;
  res.send_json(paginate("tokenInfo", std::move(list), *p).dump());
}

void patch_token(const ctx_ptr& ctx, const http_request& req,
                 const responder& res) {
  auto text = req.param("token_id");
  auto id = positive_id(text);
  if (!id)
    return res.send_error(grpc_code::invalid_argument,
                          "tokenId: not a valid id: '"
                              + util::fit_text(text, {64, false, true}) + "'");
  auto t = ctx->auth->access_token(*id);
  if (!t || (t->username != req.principal.username && !req.principal.admin))
    return res.send_error(grpc_code::not_found, "token " + text + " not found");
  auto body = json_body(req, res);
  if (!body)
    return;
  access_token_changed ev{*id,
                          t->username,
                          t->description,
                          t->revoked,
                          req.principal.username,
                          wall_now_us(*ctx)};
  if (auto d = body->find("description"); d != body->end() && !d->is_null()) {
    if (!d->is_string())
      return res.send_error(grpc_code::invalid_argument,
                            "description: expected a string");
    ev.description = d->get<std::string>();
    if (!text_ok(res, "description", ev.description, description_rules))
      return;
  }
  if (auto r = body->find("setRevoked"); r != body->end() && !r->is_null()) {
    if (!r->is_boolean())
      return res.send_error(grpc_code::invalid_argument,
                            "setRevoked: expected true or false");
    ev.revoked = ev.revoked || r->get<bool>();
  }
  record(ctx, ev, res, [ctx, res, id = *id] {
    res.send_json(
        json{{"tokenInfo", token_json(*ctx, *ctx->auth->access_token(id))}}
            .dump());
  });
}

void get_me(const ctx_ptr& ctx, const http_request& req, const responder& res) {
  auto u = ctx->auth->find(req.principal.username);
  if (!u)
    return res.send_error(grpc_code::not_found, "user not found");
  res.send_json(json{{"user", user_json(*u)}}.dump());
}

} // namespace

const route_family& user_routes() {
  static const route_family family{
      "user_routes",
      {"/api/v1/users", "/api/v1/tokens", "/api/v1/auth", "/api/v1/me"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          // Public: the guard lets an `anyone` row through.
          {"POST",   "/api/v1/auth/login", &login, access::anyone},
          {"POST",   "/api/v1/auth/logout", &logout, access::signed_in},
          {"GET",    "/api/v1/me", &get_me, access::signed_in},
          {"GET",    "/api/v1/users", &list_users, access::signed_in},
          {"POST",   "/api/v1/users", &create_user, access::admin},
          {"GET",    "/api/v1/users/{user_id}", &get_user, access::signed_in},
          // One's own, or an admin: checked in the handler.
          {"PATCH",  "/api/v1/users/{user_id}", &patch_user, access::signed_in},
          {"GET",    "/api/v1/users/{username}/by-username", &get_user_by_name, access::signed_in},
          {"POST",   "/api/v1/tokens", &create_token, access::signed_in},
          {"GET",    "/api/v1/tokens", &list_tokens, access::signed_in},
          {"PATCH",  "/api/v1/tokens/{token_id}", &patch_token, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
