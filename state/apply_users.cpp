// apply() for users and sessions: accounts are created once, passwords
// change, sessions start and end. A session names an existing user; ending
// an unknown session is refused (logout of a token that is not live never
// reaches the log).

#include "state/apply_detail.hpp"

namespace det::state::detail {

namespace {

std::string user_name(const std::string& name) {
  return "user '" + name + "'";
}

} // namespace

verdict apply_one(cluster_state& s, const user_created& ev) {
  if (s.users.count(ev.username) != 0)
    return user_name(ev.username) + " already exists";
  user_info u;
  u.id = static_cast<int64_t>(s.users.size()) + 1;
  u.username = ev.username;
  u.admin = ev.admin;
  u.password_hash = ev.password_hash;
  u.created_at_us = ev.at_us;
  u.modified_at_us = ev.at_us;
  s.users.emplace(ev.username, std::move(u));
  return {};
}

verdict apply_one(cluster_state& s, const user_password_changed& ev) {
  auto i = s.users.find(ev.username);
  if (i == s.users.end())
    return "unknown " + user_name(ev.username);
  i->second.password_hash = ev.password_hash;
  i->second.modified_at_us = ev.at_us;
  return {};
}

verdict apply_one(cluster_state& s, const session_started& ev) {
  if (s.users.count(ev.username) == 0)
    return "unknown " + user_name(ev.username);
  if (s.sessions.count(ev.token_hash) != 0)
    return "the session already exists";
  s.sessions.emplace(ev.token_hash, ev.username);
  return {};
}

verdict apply_one(cluster_state& s, const session_ended& ev) {
  auto i = s.sessions.find(ev.token_hash);
  if (i == s.sessions.end())
    return "no such session";
  s.sessions.erase(i);
  return {};
}

} // namespace det::state::detail
