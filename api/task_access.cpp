#include "api/task_access.hpp"

#include "actors/model_def_actor.hpp"
#include "api/api_bridge.hpp"
#include "api/task_views.hpp"
#include "http/grpc_error.hpp"
#include "messages/model_archive.hpp"
#include "util/log.hpp"

#include <caf/event_based_actor.hpp>

#include <algorithm>

namespace det::api {

using json = nlohmann::json;
using http::grpc_code;
using http::responder;

std::optional<std::string> task_param(const http::http_request& req,
                                      const responder& res, const char* name,
                                      const char* field) {
  if (!req.principal.allocation_id.empty()) {
    res.send_error(grpc_code::permission_denied,
                   "a trial's allocation token reaches no task");
    return std::nullopt;
  }
  auto id = task_id_text(req.param(name));
  if (!id)
    res.send_error(grpc_code::invalid_argument,
                   std::string{field} + ": expected a task id (a UUID)");
  return id;
}

void with_owned_task(const ctx_ptr& ctx, const http::http_request& req,
                     const responder& res, const std::string& id,
                     const std::string& type, std::function<void()> then) {
  auto user = req.principal.username;
  bool admin = req.principal.admin;
  auto kind = task_kind_of(type);
  post(ctx->bridge, [=](caf::event_based_actor* self) {
    ask_view(
        ctx, self,
        [id, type](const state::cluster_state& s, int64_t) -> json {
          auto t = s.tasks.find(id);
          if (t == s.tasks.end()
              || (!type.empty() && t->second.task_type != type))
            return nullptr;
          return json{{"owner", t->second.owner}};
        },
        res,
        [=](json j) {
          if (j.is_null())
            return res.send_error(grpc_code::not_found,
                                  kind + " not found: " + id);
          if (!admin && j.value("owner", "") != user)
            return res.send_error(grpc_code::permission_denied,
                                  "only its owner or an admin may change "
                                      + kind + " " + id);
          then();
        });
  });
}

std::shared_ptr<json> take_files(const ctx_ptr& ctx, json& body,
                                 const char* key, const responder& res) {
  auto files = std::make_shared<json>(json::array());
  if (auto f = body.find(key); f != body.end() && !f->is_null()) {
    *files = std::move(*f);
    body.erase(key);
  }
  if (auto err = check_model_files(*files, key))
    return fail(res, err), nullptr;
  if (auto err = check_model_size(*files,
                                  ctx->config->max_model_definition_bytes, key))
    return fail(res, err), nullptr;
  return files;
}

void with_stored_context(const ctx_ptr& ctx, const responder& res,
                         const std::string& id, std::shared_ptr<json> files,
                         std::function<void()> then) {
  if (files->empty())
    return then();
  post(ctx->bridge, [ctx, res, id, files = model_files{std::move(files)},
                     then = std::move(then)](caf::event_based_actor* self) {
    self->request(ctx->model_defs, caf::infinite, put_atom::value, id, files)
        .then([then](caf::ok_atom) { then(); },
              [res, id](caf::error& err) {
                log::error() << "task " << id
                             << ": storing its context failed: " << render(err);
                fail(res, err);
              });
  });
}

std::optional<std::string> task_id_text(const std::string& text) {
  bool ok =
      !text.empty() && text.size() <= 64
      && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-';
         });
  if (!ok)
    return std::nullopt;
  return text;
}

} // namespace det::api
