// Checkpoints: a trial's report (POST /api/v1/checkpoints), one
// checkpoint's description, deletion, file removal and metadata, the
// download through the master, and the checkpoint family's table at the
// end (api/checkpoint_routes.hpp).

#include "api/checkpoint_routes.hpp"

#include "api/api_records.hpp"
#include "api/route_util.hpp"
#include "api/views_cluster.hpp"
#include "messages/json_fields.hpp"

#include "actors/master_actor.hpp"
#include "api/api_bridge.hpp"
#include "core/checkpoint_files.hpp"
#include "core/checkpoint_gc.hpp"
#include "http/grpc_error.hpp"
#include "messages/errc.hpp"
#include "state/queries.hpp"

#include <caf/event_based_actor.hpp>

#include <functional>
#include <memory>

namespace det::api {

using json = nlohmann::json;

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
  command_and_answer(ctx, res,
                     det::delete_checkpoints{*uuids, req.principal.username});
}

// POST /api/v1/checkpoints/rm (`det checkpoint rm`): removes the files
// matching checkpointGlobs from each checkpoint; no globs refreshes their
// resources from the storage. The collector does the file work.
void remove_checkpoint_files(const ctx_ptr& ctx, const http::http_request& req,
                             const responder& res) {
  if (!req.principal.allocation_id.empty())
    return res.send_error(grpc_code::permission_denied,
                          "a trial may not remove checkpoint files");
  auto body = json_body(req, res);
  if (!body)
    return;
  auto uuids = uuids_of(*body, res);
  if (!uuids)
    return;
  auto globs = checkpoint_globs_of(
      body->value("checkpointGlobs", nlohmann::json::array()));
  if (!globs)
    return fail(res, globs.error());
  command_and_answer(
      ctx, res,
      det::remove_checkpoint_files{*uuids, *globs, req.principal.username});
}

// POST /api/v1/checkpoints/{uuid}/metadata (the SDK's add_metadata and
// remove_metadata): {"checkpoint": {"uuid", "metadata"}} replaces the
// checkpoint's metadata with the whole of `metadata`.
void set_checkpoint_metadata(const ctx_ptr& ctx, const http::http_request& req,
                             const responder& res) {
  if (!req.principal.allocation_id.empty())
    return res.send_error(grpc_code::permission_denied,
                          "a trial may not edit checkpoint metadata");
  auto uuid = req.param("uuid");
  if (!uuids_of({{"checkpointUuids", {uuid}}}, res))
    return;
  auto body = json_body(req, res);
  if (!body)
    return;
  auto c = body->find("checkpoint");
  if (c == body->end() || !c->is_object())
    return res.send_error(grpc_code::invalid_argument,
                          "checkpoint: expected an object");
  if (auto u = c->find("uuid"); u != c->end() && !u->is_null() && *u != uuid)
    return res.send_error(grpc_code::invalid_argument,
                          "checkpoint.uuid: differs from the path's uuid");
  auto m = c->find("metadata");
  if (m == c->end())
    return res.send_error(grpc_code::invalid_argument,
                          "checkpoint.metadata: required");
  command_and_answer(
      ctx, res, det::set_checkpoint_metadata{uuid, *m, req.principal.username});
}

// GET /checkpoints/{uuid} (`det checkpoint download --mode master`, the
// SDK's download through the master): the checkpoint's files as a
// gzipped tar, read from its experiment's storage.
void download_checkpoint(const ctx_ptr& ctx, const http::http_request& req,
                         const responder& res) {
  if (!req.principal.allocation_id.empty())
    return res.send_error(grpc_code::permission_denied,
                          "a trial may not download checkpoints here");
  auto uuid = req.param("uuid");
  if (!uuids_of({{"checkpointUuids", {uuid}}}, res))
    return;
  if (!ctx->pack_checkpoint)
    return res.send_error(grpc_code::unavailable,
                          "this master cannot pack checkpoints");
  post(ctx->bridge, [ctx, res, uuid](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [uuid](const state::cluster_state& s, int64_t) -> json {
          for (const auto& [id, t] : s.trials)
            for (const auto& c : t.checkpoints)
              if (c.uuid == uuid && c.state != "deleted")
                if (auto e = state::find_experiment(s, t.experiment_id))
                  return e->config.value("checkpoint_storage", json::object());
          return nullptr;
        },
        res,
        [ctx, res, uuid](json storage) {
          if (storage.is_null())
            return res.send_error(grpc_code::not_found,
                                  "checkpoint " + uuid + " not found");
          ctx->pack_checkpoint(
              uuid, std::move(storage), [res](caf::expected<std::string> tgz) {
                if (!tgz)
                  return res.send(http::error_response(tgz.error()));
                http::http_response r;
                r.status = 200;
                r.body = std::move(*tgz);
                r.headers.set("Content-Type", "application/gzip");
                res.send(std::move(r));
              });
        });
  });
}

void get_checkpoint(const ctx_ptr& ctx, const http::http_request& req,
                    const responder& res) {
  auto uuid = req.param("uuid");
  answer_view(
      ctx, req, res,
      [uuid](const state::cluster_state& s, int64_t) {
        return checkpoint_response(s, uuid);
      },
      "checkpoint " + uuid + " not found");
}

void report_checkpoint(const ctx_ptr& ctx, const http::http_request& req,
                       const responder& res) {
  auto body = json_body(req, res);
  if (!body)
    return;
  // Upstream's body is the v1Checkpoint itself; {"checkpoint": {...}} too.
  auto c = body->contains("checkpoint")
               ? get_field_or(*body, "checkpoint", json::object())
               : *body;
  require_object(c, "field 'checkpoint'");
  auto alloc = get_field_or(c, "allocationId", std::string{});
  auto uuid = get_field_or(c, "uuid", std::string{});
  auto meta = get_field_or(c, "metadata", json::object());
  require_object(meta, "field 'checkpoint.metadata'");
  // The files the harness lists ({path: size}) live beside the metadata.
  if (auto r = c.find("resources");
      r != c.end() && !r->is_null() && !meta.contains("resources")) {
    if (!r->is_object())
      return res.send_error(grpc_code::invalid_argument,
                            "checkpoint.resources: expected an object");
    meta["resources"] = *r;
  }
  auto steps = get_field_or(meta, "steps_completed", int64_t{0});
  // An unmanaged trial has no allocation: its task id names it, and its
  // user's session reports for it.
  if (alloc.empty() && !uuid.empty() && req.principal.allocation_id.empty()) {
    auto trial =
        state::trial_of_task_id(get_field_or(c, "taskId", std::string{}));
    if (!trial)
      return res.send_error(grpc_code::invalid_argument,
                            "checkpoint.taskId: required without an "
                            "allocationId, an unmanaged trial's task id");
    return record_write(ctx, req, res,
                        parse_unmanaged_checkpoint({{"trialId", *trial},
                                                    {"uuid", uuid},
                                                    {"steps", steps},
                                                    {"metadata", meta}}),
                        [ctx, res](caf::event_based_actor*, json) {
                          send_written(ctx, res, "{}");
                        });
  }
  if (alloc.empty() || uuid.empty())
    return res.send_error(grpc_code::invalid_argument,
                          "checkpoint.allocationId and checkpoint.uuid: "
                          "required");
  if (!authorized(ctx, req, res, alloc))
    return;
  command_and_answer(ctx, res, checkpoint_report{alloc, uuid, steps, meta});
}

} // namespace

const route_family& checkpoint_routes() {
  static const route_family family{
      "checkpoint_routes",
      {"/api/v1/checkpoints", "/checkpoints"},
      {
          // One line a row, past 80 columns, so the table reads as one.
          // clang-format off
          {"GET",    "/api/v1/checkpoints/{uuid}", &get_checkpoint, access::signed_in},
          // A trial reports one with its allocation token (checked in
          // the handler); an unmanaged trial's user with a session.
          {"POST",   "/api/v1/checkpoints", &report_checkpoint, access::signed_in},
          // A trial's allocation token is refused in the handlers' words.
          {"DELETE", "/api/v1/checkpoints", &delete_checkpoints, access::signed_in},
          {"POST",   "/api/v1/checkpoints/rm", &remove_checkpoint_files, access::signed_in},
          {"POST",   "/api/v1/checkpoints/{uuid}/metadata", &set_checkpoint_metadata, access::signed_in},
          {"GET",    "/checkpoints/{uuid}", &download_checkpoint, access::signed_in},
          // clang-format on
      }};
  return family;
}

} // namespace det::api
