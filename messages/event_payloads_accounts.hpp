#pragma once

// The payload forms of messages/events_accounts.hpp, as
// messages/event_payloads.hpp does for the rest; included from there,
// after its field checks. Private to messages/events.cpp.

#include "messages/event_payloads.hpp"

namespace det::payload {

template <class F> void fields(F& f, user_created& x) {
  f.req("username", x.username);
  f.opt("admin", x.admin);
  f.opt("password_hash", x.password_hash);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, user_password_changed& x) {
  f.req("username", x.username);
  f.req("password_hash", x.password_hash);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, session_started& x) {
  f.req("username", x.username);
  f.req("token_hash", x.token_hash);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, session_ended& x) {
  f.req("username", x.username);
  f.req("token_hash", x.token_hash);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, user_edited& x) {
  f.req("username", x.username);
  f.req("new_username", x.new_username);
  f.opt("display_name", x.display_name);
  f.req("admin", x.admin);
  f.req("active", x.active);
  f.opt("agent_uid", x.agent_uid);
  f.opt("agent_gid", x.agent_gid);
  f.opt("agent_user", x.agent_user);
  f.opt("agent_group", x.agent_group);
  f.opt("by", x.by);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, access_token_created& x) {
  f.req("token_id", x.token_id);
  f.req("username", x.username);
  f.req("token_hash", x.token_hash);
  f.opt("description", x.description);
  f.opt("expires_at_us", x.expires_at_us);
  f.opt("by", x.by);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, access_token_changed& x) {
  f.req("token_id", x.token_id);
  f.req("username", x.username);
  f.opt("description", x.description);
  f.req("revoked", x.revoked);
  f.opt("by", x.by);
  f.opt("at_us", x.at_us);
}

template <class F> void fields(F& f, cluster_message_set& x) {
  f.req("message", x.message);
  f.opt("start_us", x.start_us);
  f.opt("end_us", x.end_us);
  f.opt("username", x.username);
  f.opt("at_us", x.at_us);
}

inline void validate(const user_created& x) {
  require_non_empty("username", x.username);
}

inline void validate(const session_started& x) {
  require_non_empty("username", x.username);
  require_token_hash(x.token_hash);
}

inline void validate(const session_ended& x) {
  require_token_hash(x.token_hash);
}

inline void validate(const user_edited& x) {
  require_non_empty("username", x.username);
  require_non_empty("new_username", x.new_username);
  if (x.agent_uid < -1 || x.agent_gid < -1)
    throw field_error("field 'agent_uid'/'agent_gid': must be -1 or more");
}

inline void validate(const access_token_created& x) {
  if (x.token_id <= 0)
    throw field_error("field 'token_id': must be positive");
  require_non_empty("username", x.username);
  require_token_hash(x.token_hash);
  require_non_negative("expires_at_us", x.expires_at_us);
}

inline void validate(const access_token_changed& x) {
  if (x.token_id <= 0)
    throw field_error("field 'token_id': must be positive");
}

inline void validate(const cluster_message_set& x) {
  require_non_negative("start_us", x.start_us);
  require_non_negative("end_us", x.end_us);
  if (x.end_us != 0 && x.end_us <= x.start_us)
    throw field_error("field 'end_us': must be after start_us");
}

} // namespace det::payload
