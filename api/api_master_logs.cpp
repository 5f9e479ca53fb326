// The master's own log (det master logs [-f] [--tail N]) from the program's
// recent history (util/log.hpp: the last kept_records records), and the
// settings an admin may change at run time (det master config set
// --log.level: PATCH /api/v1/master/config; not kept across restarts, as
// upstream).

#include "api/api_auth.hpp"
#include "api/api_bridge.hpp"
#include "api/api_cluster.hpp"
#include "api/route_util.hpp"
#include "api/views.hpp"
#include "http/grpc_error.hpp"
#include "util/log.hpp"
#include "util/text.hpp"

#include <caf/event_based_actor.hpp>

#include <algorithm>

namespace det::api {

using json = nlohmann::json;

using ctx_ptr = std::shared_ptr<const api_context>;

namespace {

using http::grpc_code;
using http::http_request;
using http::responder;

/// Upstream's LogLevel enum names.
std::string level_enum(log::level l) {
  switch (l) {
  case log::level::trace:
    return "LOG_LEVEL_TRACE";
  case log::level::debug:
    return "LOG_LEVEL_DEBUG";
  case log::level::info:
    return "LOG_LEVEL_INFO";
  case log::level::warn:
    return "LOG_LEVEL_WARNING";
  case log::level::error:
    return "LOG_LEVEL_ERROR";
  case log::level::critical:
    return "LOG_LEVEL_CRITICAL";
  }
  return "LOG_LEVEL_INFO";
}

/// MasterLogsResponse.
std::string entry_json(const log::kept_record& r) {
  return json{{"logEntry",
               {{"id", r.id},
                {"timestamp", rfc3339(r.at_us)},
                {"message", r.message},
                {"level", level_enum(r.lvl)}}}}
      .dump();
}

/// Streams records after `after` as they are written, until the client
/// leaves; looks again every preemption_poll.
void follow(const ctx_ptr& ctx, caf::event_based_actor* self,
            http::chunk_stream out, int64_t after) {
  for (const auto& r : log::recent(after)) {
    if (!out.write_result(entry_json(r)))
      return;
    after = r.id;
  }
  if (out.cancelled())
    return;
  self->delayed_send(self, ctx->preemption_poll,
                     bridge_job{[ctx, out, after](caf::event_based_actor* s) {
                       follow(ctx, s, out, after);
                     }});
}

} // namespace

/// Any signed-in user may read it, as upstream's basic authorization lets
/// them (`det trial support-bundle` gathers it); the log holds no secret.
void master_logs(const ctx_ptr& ctx, const http_request& req,
                 const responder& res) {
  // offset: from the start (>= 0) or, negative, that many from the end;
  // limit: at most that many (0 = all).
  auto number = [&](const char* key, int64_t& out) {
    auto v = req.query.get(key);
    if (!v || v->empty())
      return true;
    try {
      size_t used = 0;
      out = std::stoll(*v, &used);
      if (used == v->size())
        return true;
    } catch (const std::exception&) {
    }
    res.send_error(grpc_code::invalid_argument,
                   std::string{key} + ": not a whole number: '"
                       + util::fit_text(*v, {32, false, true}) + "'");
    return false;
  };
  int64_t offset = 0;
  int64_t limit = 0;
  if (!number("offset", offset) || !number("limit", limit))
    return;
  if (limit < 0)
    return res.send_error(grpc_code::invalid_argument,
                          "limit: must be 0 or more");
  auto records = log::recent(0);
  size_t from = 0;
  if (offset < 0)
    from =
        records.size() - std::min(records.size(), static_cast<size_t>(-offset));
  else
    from = std::min(records.size(), static_cast<size_t>(offset));
  records.erase(records.begin(),
                records.begin() + static_cast<std::ptrdiff_t>(from));
  if (limit > 0 && records.size() > static_cast<size_t>(limit))
    records.resize(static_cast<size_t>(limit));
  bool follows = req.query.get("follow").value_or("false") == "true";
  if (!follows) {
    std::string body;
    for (const auto& r : records)
      body += http::result_line(entry_json(r)) + "\n";
    return res.send(http::http_response::json(200, std::move(body)));
  }
  auto out = res.stream();
  int64_t after = log::newest_id();
  if (!records.empty())
    after = records.back().id;
  for (const auto& r : records)
    if (!out.write_result(entry_json(r)))
      return;
  post(ctx->bridge, [ctx, out, after](caf::event_based_actor* self) {
    follow(ctx, self, out, after);
  });
}

/// PATCH /api/v1/master/config: {config: {log: {level, color}}, fieldMask:
/// {paths: [...]}}; only log.level (and log.color, accepted and ignored:
/// the master's log is plain text) may change.
/// An admin row of api/cluster_routes.cpp.
void patch_master_config(const ctx_ptr&, const http_request& req,
                         const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  auto paths = body->value("fieldMask", json::object()).value("paths", json{});
  if (!paths.is_array() || paths.empty())
    return res.send_error(grpc_code::invalid_argument,
                          "fieldMask.paths: name the fields to change "
                          "(log.level, log.color)");
  auto log_cfg = body->value("config", json::object()).value("log", json{});
  for (const auto& p : paths) {
    auto path = p.is_string() ? p.get<std::string>() : std::string{};
    if (path == "log.color")
      continue;
    if (path != "log.level")
      return res.send_error(grpc_code::invalid_argument,
                            "fieldMask.paths: '"
                                + util::fit_text(path, {64, false, true})
                                + "' cannot change at run time (only "
                                  "log.level and log.color)");
    auto v = log_cfg.is_object() ? log_cfg.value("level", json{}) : json{};
    std::string name = v.is_string() ? v.get<std::string>() : "";
    if (name.rfind("LOG_LEVEL_", 0) == 0)
      name = name.substr(10);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (name == "warning") // upstream's LOG_LEVEL_WARNING
      name = "warn";
    if (name.empty() || !log::parse_level(name))
      return res.send_error(grpc_code::invalid_argument,
                            "config.log.level: not a log level: "
                                + util::fit_text(v.dump(), {64, false, true}));
    log::warn() << "log level set to " << name << " by '"
                << req.principal.username << "'";
    (void)log::set_level(name);
  }
  res.send_json("{}");
}

} // namespace det::api
