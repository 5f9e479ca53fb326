// det-inspect's routes and GET /metrics, and the inspect family's table at
// the end (api/inspect_routes.hpp).

#include "api/inspect_routes.hpp"

#include "api/api_auth.hpp"
#include "api/log_reader.hpp"
#include "conf/redact.hpp"

#include "inspect/log_queries.hpp"
#include "inspect/metrics_view.hpp"
#include "inspect/views.hpp"
#include "messages/errc.hpp"
#include "metrics/master_metrics.hpp"
#include "metrics/registry.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

using json = nlohmann::json;

using ctx_ptr = std::shared_ptr<const api_context>;

namespace {

using http::grpc_code;
using http::responder;

/// Renders `fn(state)` inside the master and answers with its text.
void answer_with(
    const ctx_ptr& ctx, const responder& res,
    std::function<http::http_response(const state::cluster_state&)> fn) {
  post(ctx->bridge, [ctx, res,
                     fn = std::move(fn)](caf::event_based_actor* self) {
    auto out = std::make_shared<http::http_response>();
    state_view v{[fn, out](const state::cluster_state& s, int64_t) {
      *out = fn(s);
      return std::string{};
    }};
    self->request(ctx->master, ctx->request_timeout, view_atom::value, v)
        .then([res, out](std::string&) { res.send(std::move(*out)); },
              [res](caf::error& err) { res.send(http::error_response(err)); });
  });
}

/// A query parameter as an integer; answers 400 naming it when it is not.
bool int_param(const http::http_request& req, const responder& res,
               const char* name, std::optional<int64_t>& out) {
  auto v = req.query.get(name);
  if (!v)
    return true;
  try {
    size_t used = 0;
    auto n = std::stoll(*v, &used);
    if (used == v->size()) {
      out = n;
      return true;
    }
  } catch (const std::exception&) {
  }
  res.send_error(grpc_code::invalid_argument,
                 std::string{name} + ": not an integer: '" + *v + "'");
  return false;
}

void on_reader(const std::shared_ptr<log_reader>& reader, const responder& res,
               std::function<caf::expected<json>(event_store&)> fn) {
  if (!reader)
    return res.send_error(grpc_code::unavailable, "no event log to read");
  auto ok = reader->submit(
      [res, fn = std::move(fn)](event_store* log, const caf::error& err) {
        if (log == nullptr)
          return res.send(http::error_response(err));
        auto out = fn(*log);
        if (!out)
          return res.send(http::error_response(out.error()));
        // Password and session-token hashes never leave the master.
        res.send_json(conf::redact(*out).dump());
      });
  if (!ok)
    res.send_error(grpc_code::unavailable,
                   "too many event-log queries waiting; try again");
}

void events_route(const std::shared_ptr<log_reader>& reader,
                  const http::http_request& req, const responder& res) {
  inspection::event_filter f;
  std::optional<int64_t> limit;
  if (!int_param(req, res, "from", f.from) || !int_param(req, res, "to", f.to)
      || !int_param(req, res, "limit", limit))
    return;
  if (limit)
    f.limit = *limit;
  if (auto s = req.query.get("stream"); s && !s->empty())
    f.stream = *s;
  if (auto t = req.query.get("type"); t && !t->empty())
    f.type = *t;
  on_reader(reader, res,
            [f](event_store& log) { return inspection::query_events(log, f); });
}

void state_route(const ctx_ptr& ctx, const std::shared_ptr<log_reader>& reader,
                 const http::http_request& req, const responder& res) {
  std::optional<int64_t> at;
  if (!int_param(req, res, "at", at))
    return;
  if (!at)
    return answer_with(ctx, res, [](const state::cluster_state& s) {
      return http::http_response::json(
          200, conf::redact(state::to_snapshot(s)).dump());
    });
  on_reader(reader, res, [at = *at](event_store& log) -> caf::expected<json> {
    auto st = inspection::state_at(log, at);
    if (!st)
      return std::move(st.error());
    return state::to_snapshot(*st);
  });
}

void get_events(const ctx_ptr& ctx, const http::http_request& req,
                const responder& res) {
  events_route(ctx->inspect_reader, req, res);
}

void get_state(const ctx_ptr& ctx, const http::http_request& req,
               const responder& res) {
  state_route(ctx, ctx->inspect_reader, req, res);
}

void get_view(const ctx_ptr& ctx, const http::http_request& req,
              const responder& res) {
  auto kind = inspection::view_kind_from(req.param("kind"));
  if (!kind)
    return res.send_error(grpc_code::not_found,
                          "no inspect view '" + req.param("kind")
                              + "'; known: " + inspection::view_kind_names()
                              + ", events, state");
  answer_with(ctx, res, [k = *kind](const state::cluster_state& s) {
    return http::http_response::json(200, inspection::view(s, k).dump());
  });
}

void get_metrics(const ctx_ptr& ctx, const http::http_request&,
                 const responder& res) {
  answer_with(ctx, res, [](const state::cluster_state& s) {
    auto text = metrics::encode(inspection::state_families(s))
                + metrics::global_registry().text();
    auto out = http::http_response::text(200, std::move(text));
    out.headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    return out;
  });
}

} // namespace

const route_family& inspect_routes() {
  metrics::register_master_metrics();
  static const route_family family{
      "inspect_routes",
      {"/api/v1/inspect", "/metrics"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // The event log and the state are the whole cluster: admins.
          // clang-format off
          {"GET",    "/api/v1/inspect/events", &get_events, access::admin},
          {"GET",    "/api/v1/inspect/state", &get_state, access::admin},
          {"GET",    "/api/v1/inspect/{kind}", &get_view, access::admin},
          {"GET",    "/metrics", &get_metrics, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
