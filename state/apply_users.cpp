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

verdict apply_one(cluster_state& s, const user_edited& ev) {
  auto i = s.users.find(ev.username);
  if (i == s.users.end())
    return "unknown " + user_name(ev.username);
  if (ev.new_username != ev.username && s.users.count(ev.new_username) != 0)
    return user_name(ev.new_username) + " already exists";
  user_info u = i->second;
  u.username = ev.new_username;
  u.display_name = ev.display_name;
  u.admin = ev.admin;
  u.active = ev.active;
  u.agent_uid = ev.agent_uid;
  u.agent_gid = ev.agent_gid;
  u.agent_user = ev.agent_user;
  u.agent_group = ev.agent_group;
  u.modified_at_us = ev.at_us;
  s.users.erase(i);
  if (ev.new_username != ev.username) {
    // A rename keeps the account's sessions, tokens and experiments.
    for (auto& [hash, name] : s.sessions)
      if (name == ev.username)
        name = ev.new_username;
    for (auto& [id, t] : s.access_tokens)
      if (t.username == ev.username)
        t.username = ev.new_username;
    for (auto& [id, e] : s.experiments)
      if (e.owner == ev.username)
        e.owner = ev.new_username;
  }
  s.users.emplace(u.username, std::move(u));
  return {};
}

verdict apply_one(cluster_state& s, const access_token_created& ev) {
  if (s.users.count(ev.username) == 0)
    return "unknown " + user_name(ev.username);
  if (s.access_tokens.count(ev.token_id) != 0)
    return "access token " + std::to_string(ev.token_id) + " already exists";
  if (!s.access_tokens.empty()
      && ev.token_id <= s.access_tokens.rbegin()->first)
    return "access token ids must increase";
  access_token_info t;
  t.id = ev.token_id;
  t.username = ev.username;
  t.token_hash = ev.token_hash;
  t.description = ev.description;
  t.created_at_us = ev.at_us;
  t.expires_at_us = ev.expires_at_us;
  s.access_tokens.emplace(t.id, std::move(t));
  return {};
}

verdict apply_one(cluster_state& s, const access_token_changed& ev) {
  auto i = s.access_tokens.find(ev.token_id);
  if (i == s.access_tokens.end())
    return "unknown access token " + std::to_string(ev.token_id);
  if (i->second.revoked && !ev.revoked)
    return "access token " + std::to_string(ev.token_id)
           + " is revoked: it cannot be restored";
  i->second.description = ev.description;
  if (ev.revoked && !i->second.revoked) {
    i->second.revoked = true;
    i->second.revoked_at_us = ev.at_us;
  }
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
