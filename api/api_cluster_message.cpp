// The cluster-wide message (det master cluster-message set/get/clear, and
// the one GET /api/v1/master shows). Setting or clearing it is a
// cluster_message_set event the master writes
// (master_core::change_users); the routes answer once it is durable. What
// is shown depends on the time: the context's wall clock.

#include "api/account_records.hpp"
#include "api/route_util.hpp"
#include "conf/duration.hpp"
#include "http/grpc_error.hpp"
#include "util/time_text.hpp"

namespace det::api {

using json = nlohmann::json;

namespace {

using http::grpc_code;
using http::http_request;
using http::responder;

/// A cluster message: at most 1 KiB, lines allowed.
const util::text_rules message_rules{1024, true, true};

/// Who may read and change the cluster message: admins (upstream's
/// CanUpdateMasterConfig, and its words for the refusal).
bool may_edit_cluster_message(const http_request& req, const responder& res) {
  if (req.principal.admin)
    return true;
  res.send_error(grpc_code::permission_denied, "user does not have permission");
  return false;
}

/// The message as clients show it, or null when none is set or its window
/// has passed; with `started_only`, also null until its window opens (as
/// upstream: master info shows the message in force, `det master
/// cluster-message get` one yet to come too).
json cluster_message_json(const state::cluster_message_info& m, int64_t now,
                          bool started_only) {
  if (m.message.empty() || (m.end_us != 0 && now >= m.end_us)
      || (started_only && now <= m.start_us))
    return nullptr;
  // Times as upstream writes them (no zero fraction): `det master
  // cluster-message get` shows the end time as it was set.
  auto at = [](int64_t us) { return util::format_rfc3339_trimmed(us); };
  return {{"message", m.message},
          {"startTime", at(m.start_us)},
          {"endTime", m.end_us == 0 ? json(nullptr) : json(at(m.end_us))},
          {"createdTime", at(m.set_at_us)}};
}

/// A time field: RFC 3339, or absent (nullopt result, no answer sent).
bool time_field(const json& body, const char* key, const responder& res,
                int64_t& out) {
  auto v = body.find(key);
  if (v == body.end() || v->is_null())
    return true;
  auto t = v->is_string() ? util::parse_rfc3339(v->get<std::string>())
                          : std::nullopt;
  if (!t || *t <= 0) {
    res.send_error(grpc_code::invalid_argument,
                   std::string{key}
                       + ": expected an RFC 3339 time such as "
                         "2026-01-02T15:04:05Z");
    return false;
  }
  out = *t;
  return true;
}

} // namespace

void set_cluster_message(const ctx_ptr& ctx, const http_request& req,
                         const responder& res) {
  if (!may_edit_cluster_message(req, res))
    return;
  auto body = json_body(req, res);
  if (!body)
    return;
  auto message = str_field(*body, "message", "message");
  if (message.empty())
    return res.send_error(grpc_code::invalid_argument,
                          "message: required (use DELETE to clear it)");
  if (auto why = util::text_problem(message, message_rules); !why.empty())
    return res.send_error(grpc_code::invalid_argument, "message " + why);
  auto now = wall_now_us(*ctx);
  cluster_message_set ev{message, now, 0, req.principal.username, now};
  if (!time_field(*body, "startTime", res, ev.start_us)
      || !time_field(*body, "endTime", res, ev.end_us))
    return;
  if (auto d = body->find("duration"); d != body->end() && !d->is_null()) {
    auto dur = d->is_string() ? conf::parse_duration(d->get<std::string>())
                              : caf::expected<std::chrono::milliseconds>{
                                  caf::make_error(errc::invalid_argument)};
    if (!dur || dur->count() <= 0)
      return res.send_error(grpc_code::invalid_argument,
                            "duration: expected a duration such as \"2h\"");
    if (ev.end_us != 0)
      return res.send_error(grpc_code::invalid_argument,
                            "duration: give endTime or duration, not both");
    ev.end_us = ev.start_us + dur->count() * 1000;
  }
  if (ev.end_us != 0 && ev.end_us <= ev.start_us)
    return res.send_error(grpc_code::invalid_argument,
                          "endTime: must be after startTime");
  if (ev.end_us != 0 && ev.end_us <= now)
    return res.send_error(grpc_code::invalid_argument,
                          "endTime: must be in the future");
  record(ctx, ev, res, [res] { res.send_json("{}"); });
}

json active_cluster_message(const api_context& ctx,
                            const state::cluster_state& s) {
  return cluster_message_json(s.cluster_message, wall_now_us(ctx), true);
}

void get_cluster_message(const ctx_ptr& ctx, const http_request& req,
                         const responder& res) {
  if (!may_edit_cluster_message(req, res))
    return;
  answer_view(
      ctx, req, res,
      [ctx](const state::cluster_state& s, int64_t) {
        return json{
            {"clusterMessage", cluster_message_json(s.cluster_message,
                                                    wall_now_us(*ctx), false)}};
      },
      "");
}

void delete_cluster_message(const ctx_ptr& ctx, const http_request& req,
                            const responder& res) {
  if (!may_edit_cluster_message(req, res))
    return;
  record(
      ctx,
      cluster_message_set{"", 0, 0, req.principal.username, wall_now_us(*ctx)},
      res, [res] { res.send_json("{}"); });
}

} // namespace det::api
