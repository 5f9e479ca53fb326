// The shared route helpers of api/route_util.hpp.

#include "api/route_util.hpp"

#include "actors/experiment_creation_actor.hpp"
#include "http/grpc_error.hpp"
#include "messages/json_fields.hpp"
#include "util/gzip.hpp"
#include "util/log.hpp"
#include "util/text.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

void fail(const responder& res, const caf::error& err) {
  res.send(http::error_response(err));
}

std::chrono::steady_clock::time_point deadline_of(const ctx_ptr& ctx) {
  return std::chrono::steady_clock::now() + ctx->request_timeout;
}

read::refuse_fn refused(responder res) {
  return [res](int64_t, const std::string& why) {
    res.send_error(grpc_code::unavailable, why);
  };
}

std::optional<int64_t> min_position(const http::http_request& req,
                                    const responder& res) {
  auto text = req.headers.get("X-Det-Min-Position");
  if (!text)
    return int64_t{0};
  try {
    size_t used = 0;
    auto n = std::stoll(*text, &used);
    if (used == text->size() && n >= 0)
      return n;
  } catch (const std::exception&) {
  }
  res.send_error(grpc_code::invalid_argument,
                 "X-Det-Min-Position: not a log position: '"
                     + text->substr(0, 40) + "'");
  return std::nullopt;
}

void send_written(const ctx_ptr& ctx, const responder& res, std::string body) {
  auto r = http::http_response::json(200, std::move(body));
  if (ctx->reads)
    r.headers.set("X-Det-Position",
                  std::to_string(ctx->reads->published_position()));
  res.send(std::move(r));
}

void send_command(const ctx_ptr& ctx, const responder& res, command c,
                  std::function<void(caf::event_based_actor*, json)> then) {
  post(ctx->bridge, [ctx, res, c = std::move(c),
                     then = std::move(then)](caf::event_based_actor* self) {
    self->request(ctx->master, ctx->request_timeout, c)
        .then(
            [self, then](const std::string& reply) {
              then(self, json::parse(reply, nullptr, false));
            },
            [res](caf::error& err) { fail(res, err); });
  });
}

void command_and_answer(const ctx_ptr& ctx, const responder& res, command c,
                        std::function<void(const caf::error&)> refused) {
  // Sent from this thread; the master answers the connection from its own
  // once the events are durable (no trip through the bridge).
  caf::anon_send(ctx->master, std::move(c),
                 command_callback{[ctx, res, refused = std::move(refused)](
                                      caf::expected<std::string> reply) {
                   if (reply)
                     send_written(ctx, res, "{}");
                   else if (refused)
                     refused(reply.error());
                   else
                     fail(res, reply.error());
                 }});
}

std::function<void(caf::event_based_actor*, json)>
then_view(const ctx_ptr& ctx, const responder& res,
          std::function<render_fn(const json&)> fn) {
  return
      [ctx, res, fn = std::move(fn)](caf::event_based_actor* self, json reply) {
        ask_view(ctx, self, fn(reply), res, [ctx, res](json j) {
          send_written(ctx, res, j.is_null() ? "{}" : j.dump());
        });
      };
}

void command_then_view(const ctx_ptr& ctx, const responder& res, command c,
                       std::function<render_fn(const json&)> fn) {
  send_command(ctx, res, std::move(c), then_view(ctx, res, std::move(fn)));
}

void ask_view(const ctx_ptr& ctx, caf::event_based_actor* self, render_fn fn,
              responder res, std::function<void(json)> then,
              int64_t min_position) {
  if (ctx->reads) {
    // Rendered on a replica; `then` runs back on the bridge, where the
    // caller's `self` lives.
    ctx->reads->read(
        min_position, deadline_of(ctx),
        [ctx, fn = std::move(fn),
         then = std::move(then)](const read::read_view& v) {
          post(ctx->bridge, [then, j = fn(v.state, v.now_us)](
                                caf::event_based_actor*) { then(j); });
        },
        refused(res));
    return;
  }
  state_view v{[fn = std::move(fn)](const state::cluster_state& s,
                                    int64_t now) { return fn(s, now).dump(); }};
  self->request(ctx->master, ctx->request_timeout, view_atom::value, v)
      .then([then = std::move(then)](
                std::string& text) { then(json::parse(text, nullptr, false)); },
            [res](caf::error& err) { fail(res, err); });
}

namespace {

/// Runs `fn` on a replica at the request's X-Det-Min-Position, or answers
/// 400 (a bad position) or 503 (no read model, or it did not get there).
void on_replica(const ctx_ptr& ctx, const http::http_request& req,
                const responder& res, read::read_fn fn) {
  auto min = min_position(req, res);
  if (!min)
    return;
  if (!ctx->reads) {
    res.send_error(grpc_code::unavailable, "no read model");
    return;
  }
  ctx->reads->read(*min, deadline_of(ctx), std::move(fn), refused(res));
}

} // namespace

void answer_coded_read(const ctx_ptr& ctx, const http::http_request& req,
                       responder res, coded_text_fn fn) {
  auto accept = req.headers.get("Accept-Encoding");
  auto coding = accept && gzip::accepted(*accept) ? body_coding::gzip
                                                  : body_coding::identity;
  on_replica(ctx, req, res,
             [res, coding, fn = std::move(fn)](const read::read_view& v) {
               auto r = http::http_response::json(200, fn(v, coding));
               if (coding == body_coding::gzip)
                 r.headers.set("Content-Encoding", "gzip");
               r.headers.set("Vary", "Accept-Encoding");
               r.headers.set("X-Det-Position", std::to_string(v.position));
               res.send(std::move(r));
             });
}

void answer_read(const ctx_ptr& ctx, const http::http_request& req,
                 responder res, text_fn fn, std::string missing) {
  on_replica(ctx, req, res,
             [res, fn = std::move(fn),
              missing = std::move(missing)](const read::read_view& v) {
               auto text = fn(v);
               if (text.empty() || text == "null") {
                 res.send_error(grpc_code::not_found, missing);
                 return;
               }
               auto r = http::http_response::json(200, std::move(text));
               r.headers.set("X-Det-Position", std::to_string(v.position));
               res.send(std::move(r));
             });
}

void answer_view(const ctx_ptr& ctx, const http::http_request& req,
                 responder res, render_fn fn, std::string missing) {
  if (ctx->reads) {
    answer_read(
        ctx, req, std::move(res),
        [fn = std::move(fn)](const read::read_view& v) {
          return fn(v.state, v.now_us).dump();
        },
        std::move(missing));
    return;
  }
  // The master renders the JSON text once; it goes out as it is (no
  // parse and dump again on the bridge: a list can be megabytes).
  state_view v{[fn = std::move(fn)](const state::cluster_state& s,
                                    int64_t now) { return fn(s, now).dump(); }};
  post(ctx->bridge, [ctx, res, v = std::move(v), missing = std::move(missing)](
                        caf::event_based_actor* self) {
    self->request(ctx->master, ctx->request_timeout, view_atom::value, v)
        .then(
            [res, missing](std::string& text) {
              if (text == "null")
                res.send_error(grpc_code::not_found, missing);
              else
                res.send_json(std::move(text));
            },
            [res](caf::error& err) { fail(res, err); });
  });
}

void answer_text_view(const ctx_ptr& ctx, const http::http_request& req,
                      responder res, state_text_fn fn,
                      std::string content_type) {
  auto text_response = [content_type](std::string body) {
    http::http_response r;
    r.status = 200;
    r.body = std::move(body);
    r.headers.set("Content-Type", content_type);
    return r;
  };
  if (ctx->reads) {
    on_replica(
        ctx, req, res,
        [res, fn = std::move(fn), text_response](const read::read_view& v) {
          auto r = text_response(fn(v.state, v.now_us));
          r.headers.set("X-Det-Position", std::to_string(v.position));
          res.send(std::move(r));
        });
    return;
  }
  state_view v{std::move(fn)};
  post(ctx->bridge, [ctx, res, v = std::move(v),
                     text_response](caf::event_based_actor* self) {
    self->request(ctx->master, ctx->request_timeout, view_atom::value, v)
        .then(
            [res, text_response](std::string& text) {
              res.send(text_response(std::move(text)));
            },
            [res](caf::error& err) { fail(res, err); });
  });
}

/// offset and limit from the query; answers 400 and returns nullopt when
/// either is not a number.
std::optional<page> page_of(const http::http_request& req,
                            const responder& res) {
  page p;
  try {
    if (auto o = req.query.get("offset"))
      p.offset = std::max<int64_t>(std::stoll(*o), 0);
    if (auto l = req.query.get("limit"))
      p.limit = std::max<int64_t>(std::stoll(*l), 0);
  } catch (const std::exception&) {
    res.send_error(grpc_code::invalid_argument, "offset/limit: not a number");
    return std::nullopt;
  }
  return p;
}

std::optional<int64_t> positive_id(const std::string& text) {
  try {
    size_t used = 0;
    auto id = std::stoll(text, &used);
    if (used == text.size() && id > 0)
      return id;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::optional<int64_t> id_param(const http::http_request& req,
                                const responder& res, const char* name) {
  auto text = req.param(name);
  if (auto id = positive_id(text))
    return id;
  res.send_error(grpc_code::invalid_argument,
                 std::string{name} + ": not a valid id: '"
                     + util::fit_text(text, {64, false, true}) + "'");
  return std::nullopt;
}

void answer_by_id(const ctx_ptr& ctx, const http::http_request& req,
                  const responder& res, const std::string& what,
                  id_render_fn fn, const char* param) {
  auto id = id_param(req, res, param);
  if (!id)
    return;
  answer_view(
      ctx, req, res,
      [fn = std::move(fn), id = *id](const state::cluster_state& s, int64_t) {
        return fn(s, id);
      },
      what + " " + std::to_string(*id) + " not found");
}

std::optional<json> json_body(const http::http_request& req,
                              const responder& res) {
  auto j = json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    res.send_error(grpc_code::invalid_argument,
                   "the request body is not a JSON object");
    return std::nullopt;
  }
  // JSON text can spell a NUL ("\u0000") and nest without end; neither
  // goes further than here.
  if (auto why = json_problem(j, ""); !why.empty()) {
    res.send_error(grpc_code::invalid_argument, why);
    return std::nullopt;
  }
  return j;
}

std::string allocation_token(const http::http_request& req) {
  auto token =
      bearer_token(req.headers.get("Grpc-Metadata-x-allocation-token"));
  return token.empty() ? bearer_token(req.headers.get("Authorization")) : token;
}

/// Requires the allocation token of `allocation_id` (the guard in
/// api_auth.cpp has authenticated the request); answers 403 otherwise.
bool authorized(const ctx_ptr&, const http::http_request& req,
                const responder& res, const std::string& allocation_id) {
  if (req.principal.allocation_id != allocation_id) {
    log::warn() << "refused a request for allocation " << allocation_id
                << " from " << req.remote_address;
    res.send_error(grpc_code::permission_denied,
                   "the session token is not valid for allocation "
                       + allocation_id);
    return false;
  }
  return true;
}

void reply_model_def(const ctx_ptr& ctx, caf::event_based_actor* self,
                     int64_t id, const responder& res) {
  // Always answered; a read of a definition being stored waits there.
  self->request(ctx->experiment_creation, caf::infinite, get_atom::value, id)
      .then(
          [res](std::string& b64) {
            res.send_json(json{{"b64Tgz", b64}}.dump());
          },
          [res](caf::error& err) { fail(res, err); });
}

} // namespace det::api
