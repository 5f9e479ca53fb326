#include "api/api_checkpoints.hpp"

#include "actors/master_actor.hpp"
#include "api/api_bridge.hpp"
#include "core/checkpoint_gc.hpp"
#include "http/grpc_error.hpp"
#include "messages/errc.hpp"

#include <caf/event_based_actor.hpp>

#include <memory>

namespace det::api {

namespace {

using http::grpc_code;
using http::responder;

constexpr size_t max_uuids = 10'000;

// The uuids of the body, or answers 400 naming the field.
std::optional<std::vector<std::string>> uuids_of(const nlohmann::json& body,
                                                 const responder& res) {
  auto f = body.find("checkpointUuids");
  if (f == body.end() || !f->is_array() || f->empty()) {
    res.send_error(grpc_code::invalid_argument,
                   "checkpointUuids: expected a non-empty list of uuids");
    return std::nullopt;
  }
  if (f->size() > max_uuids) {
    res.send_error(grpc_code::invalid_argument,
                   "checkpointUuids: at most " + std::to_string(max_uuids));
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (const auto& u : *f) {
    if (!u.is_string() || u.get<std::string>().empty()
        || u.get<std::string>().size() > 128) {
      res.send_error(grpc_code::invalid_argument,
                     "checkpointUuids: each must be a uuid string");
      return std::nullopt;
    }
    auto text = u.get<std::string>();
    for (char c : text)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-'
            || c == '_')) {
        res.send_error(grpc_code::invalid_argument,
                       "checkpointUuids: '" + text + "' is not a uuid");
        return std::nullopt;
      }
    out.push_back(std::move(text));
  }
  return out;
}

void delete_checkpoints(const ctx_ptr& ctx, const http::http_request& req,
                        const responder& res) {
  if (!req.principal.allocation_id.empty())
    return res.send_error(grpc_code::permission_denied,
                          "a trial may not delete checkpoints");
  auto body = json_body(req, res);
  if (!body)
    return;
  auto uuids = uuids_of(*body, res);
  if (!uuids)
    return;
  // Decided on the master's thread against its state; recorded next (the
  // record is refused if the state moved on in between).
  auto decided = std::make_shared<
      caf::expected<std::vector<checkpoints_deletion_requested>>>(
      std::vector<checkpoints_deletion_requested>{});
  state_view view{[decided, uuids = *uuids, user = req.principal.username](
                      const state::cluster_state& s, int64_t now_us) {
    *decided = user_checkpoint_deletion(s, uuids, user, now_us);
    return std::string{};
  }};
  post(ctx->bridge, [ctx, res, view, decided](caf::event_based_actor* self) {
    self->request(ctx->master, ctx->request_timeout, view_atom::value, view)
        .then(
            [ctx, res, self, decided](const std::string&) {
              if (!*decided)
                return fail(res, decided->error());
              event_batch batch;
              for (auto& ev : **decided)
                batch.events.emplace_back(std::move(ev));
              self->request(ctx->master, ctx->request_timeout,
                            record_atom::value, std::move(batch))
                  .then([ctx,
                         res](caf::ok_atom) { send_written(ctx, res, "{}"); },
                        [res](caf::error& err) { fail(res, err); });
            },
            [res](caf::error& err) { fail(res, err); });
  });
}

} // namespace

void add_checkpoint_routes(http::router& r, ctx_ptr ctx) {
  r.del("/api/v1/checkpoints", [ctx](http::http_request req, responder res) {
    delete_checkpoints(ctx, req, res);
  });
}

} // namespace det::api
