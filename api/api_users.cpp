// Users (det user ...), rows of api/user_routes.cpp's table; the access
// tokens are beside the table, the cluster-wide message in
// api_cluster_message.cpp. Every change is an
// account event the master decides against its own state
// (master_core::change_users); the route answers once it is durable.

#include "api/account_records.hpp"
#include "api/api_auth.hpp"
#include "api/api_records.hpp"
#include "api/auth_crypto.hpp"
#include "api/route_util.hpp"
#include "api/views.hpp"
#include "conf/duration.hpp"
#include "core/user_names.hpp"
#include "http/grpc_error.hpp"
#include "messages/json_fields.hpp"
#include "util/log.hpp"

#include <algorithm>

namespace det::api {

using json = nlohmann::json;

using ctx_ptr = std::shared_ptr<const api_context>;

namespace {

using http::grpc_code;
using http::http_request;
using http::responder;

/// A display name or token description: one line, no control characters.
const util::text_rules display_rules{128, false, true};
/// An agent user or group name: a POSIX name.
const util::text_rules posix_name_rules{32, false, false};

std::optional<user_record>
user_param(const ctx_ptr& ctx, const http_request& req, const responder& res) {
  auto text = req.param("user_id");
  auto id = positive_id(text);
  if (!id) {
    res.send_error(grpc_code::invalid_argument,
                   "userId: not a valid id: '"
                       + util::fit_text(text, {64, false, true}) + "'");
    return std::nullopt;
  }
  auto u = ctx->auth->find_id(*id);
  if (!u)
    res.send_error(grpc_code::not_found, "user " + text + " not found");
  return u;
}

/// Whether `u` passes GET /api/v1/users' filters: active, admin (true or
/// false) and name (a part of the username or display name, in any case).
struct user_filter {
  std::optional<bool> active;
  std::optional<bool> admin;
  std::string name;

  bool admits(const user_record& u) const {
    auto has = [this](const std::string& text) {
      return util::to_lower(text).find(name) != std::string::npos;
    };
    return (!active || *active == u.active) && (!admin || *admin == u.admin)
           && (name.empty() || has(u.username) || has(u.display_name));
  }
};

} // namespace

/// `det user ls` asks for active=true (with --all, for no filter).
void list_users(const ctx_ptr& ctx, const http_request& req,
                const responder& res) {
  user_filter f;
  if (!bool_query(req, res, "active", f.active)
      || !bool_query(req, res, "admin", f.admin))
    return;
  f.name = util::to_lower(req.query.get("name").value_or(""));
  auto p = page_of(req, res);
  if (!p)
    return;
  json users = json::array();
  for (const auto& u : ctx->auth->list())
    if (f.admits(u))
      users.push_back(user_json(u));
  res.send_json(paginate("users", std::move(users), *p).dump());
}

bool text_ok(const responder& res, const std::string& field,
             const std::string& value, const util::text_rules& rules) {
  auto why = util::text_problem(value, rules);
  if (why.empty())
    return true;
  res.send_error(grpc_code::invalid_argument, field + " " + why);
  return false;
}

namespace {

/// Checks a username or display name `name` for account `username` (an
/// admin or not) against upstream's reserved names; answers 400 naming
/// `field` and returns false.
bool name_ok(const responder& res, const std::string& field,
             const std::string& name, const std::string& username, bool admin) {
  auto why = reserved_name_problem(name, username, admin);
  if (why.empty())
    return true;
  res.send_error(grpc_code::invalid_argument, field + ": " + why);
  return false;
}

/// The POSIX identity a user's trials run as; -1 and "" = the agent's own.
struct agent_identity {
  int64_t uid = -1;
  int64_t gid = -1;
  std::string user;
  std::string group;
};

/// A request's agentUserGroup `v` (under `field`) as upstream takes it:
/// all four of agentUid, agentGid, agentUser and agentGroup, or none of
/// them (the agent's own identity). Answers 400 and returns nothing on a
/// bad or missing one, with upstream's words for the missing.
std::optional<agent_identity> agent_identity_of(const json& v,
                                                const std::string& field,
                                                const responder& res) {
  auto bad = [&](const std::string& why) {
    res.send_error(grpc_code::invalid_argument, why);
    return std::nullopt;
  };
  if (!v.is_object())
    return bad(field + ": expected an object");
  agent_identity out;
  int given = 0;
  for (const auto& [k, x] : v.items()) {
    if (x.is_null())
      continue;
    ++given;
    if (k == "agentUid" || k == "agentGid") {
      if (!x.is_number_integer() || x.get<int64_t>() < 0
          || x.get<int64_t>() > 0x7fffffff)
        return bad(field + "." + k + ": expected an id from 0 to 2147483647");
      (k == "agentUid" ? out.uid : out.gid) = x.get<int64_t>();
    } else if (k == "agentUser" || k == "agentGroup") {
      if (!x.is_string())
        return bad(field + "." + k + ": expected a string");
      auto n = x.get<std::string>();
      if (!n.empty() && !text_ok(res, field + "." + k, n, posix_name_rules))
        return std::nullopt;
      (k == "agentUser" ? out.user : out.group) = n;
    } else {
      return bad(field + "." + k + ": not a field of an agent user and group");
    }
  }
  if (given == 0)
    return out;
  if (given < 4)
    return bad("agentUid, agentGid, agentUser and agentGroup cannot be empty");
  if (out.user.empty() || out.group.empty())
    return bad("agentUser and agentGroup names cannot be empty");
  return out;
}

/// The object under `camel` or `snake`; null when neither is there.
const json& object_field(const json& j, const char* camel, const char* snake) {
  static const json none;
  for (const char* k : {camel, snake})
    if (auto i = j.find(k); i != j.end() && !i->is_null())
      return *i;
  return none;
}

} // namespace

void create_user(const ctx_ptr& ctx, const http_request& req,
                 const responder& res) {
  // Admins only: the table's row checks it first.
  auto body = json_body(req, res);
  if (!body)
    return;
  auto user = body->value("user", json::object());
  if (!user.is_object())
    return res.send_error(grpc_code::invalid_argument,
                          "user: expected an object");
  auto name = str_field(user, "username", "username");
  if (!text_ok(res, "user.username", name, user_name_rules))
    return;
  bool admin = bool_field(user, "admin", "admin", false);
  bool active = bool_field(user, "active", "active", true);
  // Upstream keeps a display name without the blanks at its ends.
  auto display =
      std::string{util::trim(str_field(user, "displayName", "display_name"))};
  if (!display.empty()
      && !text_ok(res, "user.displayName", display, display_rules))
    return;
  if (!name_ok(res, "user.username", name, name, admin)
      || (!display.empty()
          && !name_ok(res, "user.displayName", display, name, admin)))
    return;
  agent_identity group;
  if (const auto& g = object_field(user, "agentUserGroup", "agent_user_group");
      !g.is_null()) {
    auto parsed = agent_identity_of(g, "user.agentUserGroup", res);
    if (!parsed)
      return;
    group = *parsed;
  }
  // A quick answer for the common case; the master decides (two creates
  // of one name at once: one gets 409 there).
  if (ctx->auth->find(name))
    return res.send_error(grpc_code::already_exists,
                          "user '" + name + "' already exists");
  auto password = str_field(*body, "password", "password");
  if (!bool_field(*body, "isHashed", "is_hashed", false))
    password = client_hash(password);
  auto by = req.principal.username;
  // The user, then what user_created does not carry (the display name,
  // inactive, the agent identity) as one edit; the answer shows both.
  user_edited edit{name,      name,       display,     admin, active, group.uid,
                   group.gid, group.user, group.group, by,    0};
  bool edits = !display.empty() || !active || group.uid >= 0;
  auto answer = [ctx, res, name] {
    res.send_json(json{{"user", user_json(*ctx->auth->find(name))}}.dump());
  };
  with_stored_password(ctx, res, password, [=](std::string stored) {
    record(ctx, user_created{name, admin, std::move(stored), wall_now_us(*ctx)},
           res, [ctx, res, name, edit, edits, answer] {
             log::info() << "user '" << name << "' created";
             if (!edits)
               return answer();
             auto ev = edit;
             ev.at_us = wall_now_us(*ctx);
             record(ctx, ev, res, answer);
           });
  });
}

namespace {

/// Applies PATCH /api/v1/users/{id}'s account fields to `ev` (which holds
/// the user as it is). Answers 400/403 and returns false on a bad field.
bool patch_fields(const http_request& req, const responder& res,
                  const json& body, const user_record& target,
                  user_edited& ev) {
  bool admin_only = false;
  for (const auto& item : body.items()) {
    // Named, not structured bindings: a lambda below captures them.
    const std::string& key = item.key();
    const json& v = item.value();
    if (v.is_null() || key == "password" || key == "isHashed"
        || key == "is_hashed")
      continue;
    auto bad = [&](const std::string& why) {
      res.send_error(grpc_code::invalid_argument, key + ": " + why);
      return false;
    };
    if (key == "username") {
      if (!v.is_string())
        return bad("expected a string");
      ev.new_username = v.get<std::string>();
      if (!text_ok(res, "username", ev.new_username, user_name_rules))
        return false;
      admin_only = admin_only || ev.new_username != target.username;
      if (ev.new_username != target.username
          && !name_ok(res, key, ev.new_username, target.username, target.admin))
        return false;
    } else if (key == "displayName" || key == "display_name") {
      if (!v.is_string())
        return bad("expected a string");
      ev.display_name = std::string{util::trim(v.get<std::string>())};
      if (!text_ok(res, key, ev.display_name, display_rules))
        return false;
      if (ev.display_name != target.display_name && !ev.display_name.empty()
          && !name_ok(res, key, ev.display_name, target.username, target.admin))
        return false;
    } else if (key == "active" || key == "admin") {
      if (!v.is_boolean())
        return bad("expected true or false");
      (key == "active" ? ev.active : ev.admin) = v.get<bool>();
      admin_only = true;
    } else if (key == "agentUserGroup" || key == "agent_user_group") {
      admin_only = true;
      auto group = agent_identity_of(v, key, res);
      if (!group)
        return false;
      ev.agent_uid = group->uid;
      ev.agent_gid = group->gid;
      ev.agent_user = group->user;
      ev.agent_group = group->group;
    } else if (key == "remote") {
      if (v.is_boolean() && v.get<bool>())
        return bad("remote (SSO) users are not supported by this master");
    } else {
      return bad("not a field of a user that can be changed");
    }
  }
  if (admin_only && !req.principal.admin) {
    res.send_error(grpc_code::permission_denied,
                   "user '" + req.principal.username
                       + "' does not have permission: admin only");
    return false;
  }
  if (target.username == req.principal.username && (!ev.active || !ev.admin)
      && target.admin) {
    res.send_error(grpc_code::invalid_argument,
                   "an admin cannot deactivate or demote their own account");
    return false;
  }
  return true;
}

} // namespace

void patch_user(const ctx_ptr& ctx, const http_request& req,
                const responder& res) {
  auto target = user_param(ctx, req, res);
  if (!target)
    return;
  auto body = json_body(req, res);
  if (!body)
    return;
  if (!body->is_object())
    return res.send_error(grpc_code::invalid_argument,
                          "the body must be a JSON object");
  if (target->username != req.principal.username && !req.principal.admin)
    return res.send_error(grpc_code::permission_denied,
                          "only an admin may change another user");
  user_edited ev{
      target->username,       target->username,   target->display_name,
      target->admin,          target->active,     target->agent_uid,
      target->agent_gid,      target->agent_user, target->agent_group,
      req.principal.username, wall_now_us(*ctx)};
  if (!patch_fields(req, res, *body, *target, ev))
    return;
  auto edits = ev.new_username != target->username
               || ev.display_name != target->display_name
               || ev.admin != target->admin || ev.active != target->active
               || ev.agent_uid != target->agent_uid
               || ev.agent_gid != target->agent_gid
               || ev.agent_user != target->agent_user
               || ev.agent_group != target->agent_group;
  auto answer = [ctx, res, name = ev.new_username] {
    res.send_json(json{{"user", user_json(*ctx->auth->find(name))}}.dump());
  };
  auto edit = [ctx, res, ev, edits, answer] {
    if (!edits)
      return answer();
    record(ctx, ev, res, [ev, answer] {
      log::info() << "user '" << ev.username << "' edited by '" << ev.by << "'";
      answer();
    });
  };
  auto pw = body->find("password");
  if (pw == body->end() || pw->is_null())
    return edit();
  if (!pw->is_string())
    return res.send_error(grpc_code::invalid_argument,
                          "password: expected a string");
  auto password = pw->get<std::string>();
  if (!bool_field(*body, "isHashed", "is_hashed", false))
    password = client_hash(password);
  auto name = target->username;
  with_stored_password(ctx, res, password, [=](std::string stored) {
    record(ctx,
           user_password_changed{name, std::move(stored), wall_now_us(*ctx)},
           res, [name, edit] {
             log::info() << "password of user '" << name << "' changed";
             edit();
           });
  });
}

void get_user(const ctx_ptr& ctx, const http_request& req,
              const responder& res) {
  if (auto u = user_param(ctx, req, res))
    res.send_json(json{{"user", user_json(*u)}}.dump());
}

void get_user_by_name(const ctx_ptr& ctx, const http_request& req,
                      const responder& res) {
  auto name = req.param("username");
  if (auto u = ctx->auth->find(name))
    return res.send_json(json{{"user", user_json(*u)}}.dump());
  res.send_error(http::grpc_code::not_found, "user '" + name + "' not found");
}

} // namespace det::api
