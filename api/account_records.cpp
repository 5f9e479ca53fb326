#include "api/account_records.hpp"

#include "actors/master_actor.hpp"
#include "api/auth_crypto.hpp"
#include "api/views.hpp"
#include "http/grpc_error.hpp"

#include <caf/event_based_actor.hpp>

namespace det::api {

using json = nlohmann::json;

int64_t wall_now_us(const api_context& ctx) {
  return ctx.wall_clock_us();
}

json user_json(const user_record& u) {
  json group = nullptr;
  if (u.agent_uid >= 0 || u.agent_gid >= 0 || !u.agent_user.empty()
      || !u.agent_group.empty())
    group = {{"agentUid", u.agent_uid},
             {"agentGid", u.agent_gid},
             {"agentUser", u.agent_user},
             {"agentGroup", u.agent_group}};
  return {{"id", u.id},
          {"username", u.username},
          {"displayName", u.display_name},
          {"admin", u.admin},
          {"active", u.active},
          {"remote", false},
          {"agentUserGroup", group},
          {"modifiedAt", rfc3339(u.modified_at_us)}};
}

std::string str_field(const json& j, const char* camel, const char* snake) {
  for (const char* k : {camel, snake}) {
    auto i = j.find(k);
    if (i != j.end() && i->is_string())
      return i->get<std::string>();
  }
  return {};
}

bool bool_field(const json& j, const char* camel, const char* snake,
                bool fallback) {
  for (const char* k : {camel, snake}) {
    auto i = j.find(k);
    if (i != j.end() && i->is_boolean())
      return i->get<bool>();
  }
  return fallback;
}

void record_account(const std::shared_ptr<const api_context>& ctx,
                    domain_event ev, http::responder res,
                    std::function<void(const domain_event&)> then) {
  post(ctx->bridge, [ctx, ev = std::move(ev), res,
                     then = std::move(then)](caf::event_based_actor* self) {
    self->request(ctx->master, ctx->request_timeout, command{user_change{ev}})
        .then(
            [ctx, then, ev](const std::string& reply) {
              auto written = written_event(
                  ev, nlohmann::json::parse(reply, nullptr, false));
              ctx->auth->apply(written);
              then(written);
            },
            [res](caf::error& err) { res.send(http::error_response(err)); });
  });
}

void with_stored_password(const std::shared_ptr<const api_context>& ctx,
                          const http::responder& res,
                          std::string client_hash_hex,
                          std::function<void(std::string)> then) {
  auto job = [pw = std::move(client_hash_hex), then = std::move(then)] {
    then(store_password(pw));
  };
  if (!ctx->password_work->submit(std::move(job)))
    res.send_error(http::grpc_code::unavailable,
                   "too many password changes in progress; try again");
}

} // namespace det::api
