// master_core::decide's decider of the command on users, sessions, access
// tokens and the cluster message (core/commands_users.hpp):
// master_core::change_users, its reply the access token's id it drew.

#include "core/master_core.hpp"

namespace det {

decision master_core::on(const user_change& c, int64_t) {
  auto d = change_users(c.event);
  if (!d.refusal && !d.events.empty())
    if (auto t = std::get_if<access_token_created>(&d.events.front()))
      d.reply = {{"tokenId", t->token_id}};
  return d;
}

domain_event written_event(domain_event asked, const nlohmann::json& reply) {
  if (auto t = std::get_if<access_token_created>(&asked)) {
    auto id = reply.find("tokenId");
    if (reply.is_object() && id != reply.end() && id->is_number_integer())
      t->token_id = id->get<int64_t>();
  }
  return asked;
}

} // namespace det
