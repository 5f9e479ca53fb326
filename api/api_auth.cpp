#include "api/api_auth.hpp"

#include "api/account_records.hpp"

#include "api/auth_crypto.hpp"
#include "api/route_util.hpp"
#include "api/views.hpp"
#include "http/grpc_error.hpp"
#include "messages/errc.hpp"
#include "messages/json_fields.hpp"
#include "read/read_model.hpp"
#include "state/queries.hpp"
#include "util/log.hpp"
#include "util/text.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>

#include <algorithm>
#include <chrono>

namespace det::api {

using json = nlohmann::json;

using ctx_ptr = std::shared_ptr<const api_context>;

namespace {

/// How long a browser keeps the `auth` cookie: 30 days.
constexpr int64_t cookie_max_age_s = 30 * 24 * 3600;

using http::grpc_code;
using http::http_request;
using http::responder;

int64_t now_us(const ctx_ptr& ctx) {
  return wall_now_us(*ctx);
}

// -- the guard ----------------------------------------------------------------

/// Rows of the tables as a router matches them: the `anyone` rows (they
/// pass without a session), the token_check::by_master ones.
using route_set = std::shared_ptr<const http::router>;

bool in_set(const route_set& set, const http_request& req) {
  return set->match(req.method, req.path).h != nullptr;
}

/// What a trial's allocation token may call: the routes of its own trial,
/// allocation and experiment, and what the harness needs besides (task
/// logs, the context directory, checkpoints, runs/start). Nothing else: no
/// user or password changes, no other user's experiments, no cluster views.
bool in_scope(const http_request& req, const responder& res,
              const allocation_identity& id) {
  auto refuse = [&](const std::string& what) {
    res.send_error(grpc_code::permission_denied,
                   "the allocation token of " + id.allocation_id
                       + " is not valid for " + what);
    return false;
  };
  auto a = req.param("allocation_id");
  if (!a.empty() && a != id.allocation_id)
    return refuse("allocation " + a);
  auto under = [&req](std::string_view prefix) {
    return req.path.rfind(prefix, 0) == 0;
  };
  auto t = req.param("trial_id");
  if (t.empty() && under("/api/v1/trials/"))
    t = req.param("id");
  if (!t.empty() && t != std::to_string(id.trial_id))
    return refuse("trial " + t);
  if (under("/api/v1/experiments/")) {
    auto e = req.param("id");
    if (e != std::to_string(id.experiment_id))
      return refuse("experiment " + (e.empty() ? req.path : e));
    return true;
  }
  // Of the runs routes only the harness's: the run it starts. Search,
  // kill, pause and move reach other users' runs.
  if (req.path == "/api/v1/runs/start")
    return true;
  for (std::string_view p :
       {"/api/v1/trials/", "/api/v1/allocations/", "/api/v1/task/",
        "/api/v1/tasks/", "/api/v1/checkpoints", "/api/v1/webhooks/"})
    if (under(p))
      return true;
  if (req.path == "/api/v1/me" || req.path == "/api/v1/master")
    return true;
  return refuse(req.method + " " + req.path);
}

/// Runs a route. A field of the wrong type in the client's body
/// (field_error, which names it) is the client's 400, not a 500.
void call_route(const http::handler& h, http_request req,
                const responder& res) {
  try {
    h(std::move(req), res);
  } catch (const field_error& e) {
    res.send_error(grpc_code::invalid_argument, e.what());
  }
}

void pass(http_request req, responder res, const http::handler* next,
          const user_record& u, const allocation_identity* alloc) {
  if (!u.active)
    return res.send_error(grpc_code::permission_denied, "user is not active");
  req.principal = {u.username, u.admin && alloc == nullptr,
                   alloc != nullptr ? alloc->allocation_id : std::string{},
                   alloc != nullptr ? alloc->trial_id : 0};
  if (alloc != nullptr && !in_scope(req, res, *alloc))
    return;
  call_route(*next, std::move(req), res);
}

void via_allocation(const ctx_ptr& ctx, http_request req, responder res,
                    const http::handler* next, const allocation_identity& id) {
  auto owner = ctx->auth->find(id.owner);
  if (id.as_owner) {
    if (!owner)
      return res.send_error(grpc_code::unauthenticated, "invalid credentials");
    return pass(std::move(req), std::move(res), next, *owner, nullptr);
  }
  if (!owner)
    owner = ctx->auth->find("determined");
  if (!owner)
    return res.send_error(grpc_code::unauthenticated, "invalid credentials");
  pass(std::move(req), std::move(res), next, *owner, &id);
}

/// The live allocation a token belongs to, checked on the read model for
/// every request: a trial's token dies with its allocation. A token seen
/// before is looked up in the cache (token -> allocation); an unknown one
/// is checked against every live allocation once.
void find_allocation(const ctx_ptr& ctx, http_request req, responder res,
                     const http::handler* next, std::string token,
                     bool master_checks) {
  if (!ctx->reads)
    return res.send_error(grpc_code::unavailable, "no read model");
  auto cached = ctx->auth->cached_allocation(token);
  // A token checked before, on a row whose command the master checks
  // (token_check::by_master): no replica's read.
  if (cached && master_checks)
    return via_allocation(ctx, std::move(req), std::move(res), next, *cached);
  auto deadline = std::chrono::steady_clock::now() + ctx->request_timeout;
  ctx->reads->read(
      ctx->reads->published_position(), deadline,
      [ctx, req = std::move(req), res, next, token = std::move(token),
       cached](const read::read_view& v) {
        const auto& s = v.state;
        std::optional<allocation_identity> id;
        auto identity = [&s](const std::string& alloc, int64_t trial) {
          auto t = s.trials.find(trial);
          auto e = t == s.trials.end()
                       ? s.experiments.end()
                       : s.experiments.find(t->second.experiment_id);
          return allocation_identity{
              alloc, trial, e == s.experiments.end() ? "" : e->second.owner,
              e == s.experiments.end() ? 0 : e->first};
        };
        // A task's allocation acts as the task's owner, with no trial or
        // experiment of its own.
        auto task_identity =
            [&s](const std::string& alloc,
                 bool as_owner) -> std::optional<allocation_identity> {
          auto t = state::task_of_allocation(s, alloc);
          if (t == nullptr || !state::holds_allocation(*t))
            return std::nullopt;
          return allocation_identity{alloc, 0, t->owner, 0, as_owner};
        };
        if (cached) {
          auto a = s.allocations.find(cached->allocation_id);
          if (a != s.allocations.end())
            id = identity(a->first, a->second);
          else
            id = task_identity(cached->allocation_id, cached->as_owner);
        } else {
          for (const auto& [alloc, trial] : s.allocations)
            if (ctx->tokens->valid(alloc, token)) {
              id = identity(alloc, trial);
              break;
            }
          for (const auto& [tid, t] : s.tasks) {
            if (id || !state::holds_allocation(t))
              continue;
            if (ctx->tokens->valid(t.allocation_id, token))
              id = task_identity(t.allocation_id, false);
            else if (ctx->tokens->valid_user(t.allocation_id, token))
              id = task_identity(t.allocation_id, true);
          }
        }
        if (!id) {
          ctx->auth->forget_allocation(token);
          return res.send_error(grpc_code::unauthenticated,
                                "invalid credentials");
        }
        // Remembered again only when it changed (a hash and a map write
        // saved on every report of a running trial).
        if (!cached || *cached != *id)
          ctx->auth->remember_allocation(token, *id);
        via_allocation(ctx, req, res, next, *id);
      },
      [res](int64_t, const std::string& why) {
        res.send_error(grpc_code::unavailable, why);
      });
}

void guard(const ctx_ptr& ctx, const route_set& open,
           const route_set& by_master, http_request req, responder res,
           const http::handler& next) {
  if (in_set(open, req))
    return call_route(next, std::move(req), res);
  auto user_token = bearer_token(req.headers.get("Authorization"));
  if (auto u = ctx->auth->user_of_token(user_token, now_us(ctx)))
    return pass(std::move(req), std::move(res), &next, *u, nullptr);
  auto token =
      bearer_token(req.headers.get("Grpc-Metadata-x-allocation-token"));
  if (token.empty())
    token = user_token;
  if (token.empty())
    return res.send_error(grpc_code::unauthenticated,
                          "authentication required: log in with "
                          "'det user login'");
  bool master_checks = in_set(by_master, req);
  find_allocation(ctx, std::move(req), std::move(res), &next, std::move(token),
                  master_checks);
}

// -- routes -------------------------------------------------------------------

} // namespace

/// A login: throttled by name and address (429 with Retry-After), checked
/// on the password worker (never on an I/O thread), with the same hashing
/// work for unknown names; a stored hash of fewer iterations than today's
/// is replaced on success.
void login(const ctx_ptr& ctx, const http_request& req, const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto name = str_field(*body, "username", "username");
  if (name.empty())
    return res.send_error(grpc_code::invalid_argument,
                          "missing argument: username");
  // No name that could exist; refused before it reaches the throttle's
  // table or a log line.
  if (auto why = util::text_problem(name, user_name_rules); !why.empty())
    return res.send_error(grpc_code::invalid_argument, "username " + why);
  auto password = str_field(*body, "password", "password");
  if (!bool_field(*body, "isHashed", "is_hashed", false))
    password = client_hash(password);
  auto address = req.remote_address;
  int64_t wait = 0;
  {
    std::lock_guard<std::mutex> g{ctx->logins->mu};
    wait = ctx->logins->throttle.wait_us(name, address, now_us(ctx));
  }
  if (wait > 0) {
    auto secs = (wait + 999999) / 1000000;
    auto r = http::error_response(grpc_code::resource_exhausted,
                                  "too many failed logins; try again in "
                                      + std::to_string(secs) + " s",
                                  429);
    r.headers.set("Retry-After", std::to_string(secs));
    return res.send(std::move(r));
  }
  auto check = [ctx, res, name, password, address] {
    auto u = ctx->auth->find(name);
    bool ok = false;
    if (u)
      ok = password_matches(u->password_hash, password);
    else
      spend_password_work(password.empty() ? "-" : password);
    if (!ok) {
      {
        std::lock_guard<std::mutex> g{ctx->logins->mu};
        ctx->logins->throttle.failed(name, address, now_us(ctx));
      }
      log::warn() << "failed login for user '" << name << "' from " << address;
      return res.send_error(grpc_code::unauthenticated, "invalid credentials");
    }
    {
      std::lock_guard<std::mutex> g{ctx->logins->mu};
      ctx->logins->throttle.succeeded(name);
    }
    if (!u->active)
      return res.send_error(grpc_code::permission_denied, "user is not active");
    auto token = new_token();
    auto start = [ctx, res, token, user = *u] {
      record(
          ctx, session_started{user.username, token_hash(token), now_us(ctx)},
          res, [res, token, user] {
            auto r = http::http_response::json(
                200, json{{"token", token}, {"user", user_json(user)}}.dump());
            // The browser keeps it across its restarts (a session lives
            // until logout), for what only a cookie reaches: the proxy.
            r.headers.set("Set-Cookie", "auth=" + token + "; Path=/; Max-Age="
                                            + std::to_string(cookie_max_age_s)
                                            + "; HttpOnly; SameSite=Lax");
            res.send(std::move(r));
          });
    };
    if (!needs_rehash(u->password_hash))
      return start();
    record(ctx,
           user_password_changed{name, store_password(password), now_us(ctx)},
           res, start);
  };
  if (!ctx->password_work->submit(std::move(check)))
    res.send_error(grpc_code::unavailable,
                   "too many logins in progress; try again");
}

void logout(const ctx_ptr& ctx, const http_request& req, const responder& res) {
  auto token = bearer_token(req.headers.get("Authorization"));
  auto u = ctx->auth->user_of_token(token, now_us(ctx));
  auto ended = [res] {
    auto r = http::http_response::json(200, "{}");
    r.headers.set("Set-Cookie", "auth=; Path=/; Max-Age=0; HttpOnly; "
                                "SameSite=Lax");
    res.send(std::move(r));
  };
  if (!u) // an allocation token has no session to end
    return ended();
  record(ctx, session_ended{u->username, token_hash(token), now_us(ctx)}, res,
         ended);
}

bool require_admin(const http::http_request& req, const http::responder& res) {
  if (req.principal.admin)
    return true;
  res.send_error(grpc_code::permission_denied,
                 "user '" + req.principal.username
                     + "' does not have permission: admin only");
  return false;
}

void add_auth_guard(http::router& r, ctx_ptr ctx,
                    const std::vector<const route_family*>& families) {
  auto open = std::make_shared<http::router>();
  auto by_master = std::make_shared<http::router>();
  for (const auto* f : families)
    for (const auto& row : f->rows) {
      if (row.who == access::anyone)
        open->add(row.method, row.path, [](http_request, responder) {});
      if (row.tokens == token_check::by_master)
        by_master->add(row.method, row.path, [](http_request, responder) {});
    }
  r.set_guard([ctx, open = route_set{open}, by_master = route_set{by_master}](
                  http_request req, responder res, const http::handler& next) {
    guard(ctx, open, by_master, std::move(req), std::move(res), next);
  });
}

std::string ensure_default_users(caf::actor_system& sys, const api_context& ctx,
                                 const std::string& initial_password) {
  std::vector<domain_event> evs;
  for (auto [name, admin] :
       {std::pair{"admin", true}, std::pair{"determined", false}})
    if (!ctx.auth->find(name))
      evs.push_back(user_created{name, admin,
                                 store_password(client_hash(initial_password)),
                                 wall_now_us(ctx)});
  if (evs.empty())
    return {};
  caf::scoped_actor self{sys};
  std::string failure;
  for (const auto& ev : evs) {
    self->request(ctx.master, caf::infinite, command{user_change{ev}})
        .receive(
            [&](const std::string& reply) {
              ctx.auth->apply(written_event(
                  ev, nlohmann::json::parse(reply, nullptr, false)));
            },
            [&](caf::error& err) { failure = render(err); });
    if (!failure.empty())
      return "cannot create the default users: " + failure;
  }
  return {};
}

} // namespace det::api
