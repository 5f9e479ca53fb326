#pragma once

// Persisted events of users, their sessions and access tokens, and the
// cluster message. Included by messages/events.hpp (the catalogue); the
// rules there apply (past tense, never renamed, new fields at the end).
// Streams: "user/<name>" for users, sessions and tokens; "cluster" for the
// message.

#include "messages/event_definition.hpp"

#include <cstdint>
#include <string>

namespace det {

/// A user account exists. `password_hash` is conf/password_hash's stored
/// form of the client-side hash ("" = blank password); never the password.
struct user_created {
  static constexpr const char* type_name = "user_created";
  static constexpr int32_t version = 1;
  std::string username;
  bool admin = false;
  std::string password_hash;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("username", username);
    f.opt("admin", admin);
    f.opt("password_hash", password_hash);
    f.opt("at_us", at_us);
  }
  void validate() const { require_non_empty("username", username); }
  std::string stream() const { return "user/" + username; }
};

/// A user's password changed (stored form as in user_created).
struct user_password_changed {
  static constexpr const char* type_name = "user_password_changed";
  static constexpr int32_t version = 1;
  std::string username;
  std::string password_hash;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("username", username);
    f.req("password_hash", password_hash);
    f.opt("at_us", at_us);
  }
  std::string stream() const { return "user/" + username; }
};

/// A user logged in. `token_hash` is the SHA-256 (hex) of the bearer token;
/// the token itself is never stored.
struct session_started {
  static constexpr const char* type_name = "session_started";
  static constexpr int32_t version = 1;
  std::string username;
  std::string token_hash;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("username", username);
    f.req("token_hash", token_hash);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_non_empty("username", username);
    require_token_hash(token_hash);
  }
  std::string stream() const { return "user/" + username; }
};

/// A session ended (logout); its token no longer authenticates.
struct session_ended {
  static constexpr const char* type_name = "session_ended";
  static constexpr int32_t version = 1;
  std::string username;
  std::string token_hash;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("username", username);
    f.req("token_hash", token_hash);
    f.opt("at_us", at_us);
  }
  void validate() const { require_token_hash(token_hash); }
  std::string stream() const { return "user/" + username; }
};

/// A user's account changed (det user edit, rename, activate, deactivate,
/// link-with-agent-user): the event holds every editable field as it is
/// after the change. `new_username` equals `username` unless renamed.
struct user_edited {
  static constexpr const char* type_name = "user_edited";
  static constexpr int32_t version = 1;
  std::string username;
  std::string new_username;
  std::string display_name;
  bool admin = false;
  bool active = true;
  /// The POSIX identity the user's trials run as on agents; -1 and "" =
  /// the agent's own.
  int64_t agent_uid = -1;
  int64_t agent_gid = -1;
  std::string agent_user;
  std::string agent_group;
  std::string by;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("username", username);
    f.req("new_username", new_username);
    f.opt("display_name", display_name);
    f.req("admin", admin);
    f.req("active", active);
    f.opt("agent_uid", agent_uid);
    f.opt("agent_gid", agent_gid);
    f.opt("agent_user", agent_user);
    f.opt("agent_group", agent_group);
    f.opt("by", by);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_non_empty("username", username);
    require_non_empty("new_username", new_username);
    if (agent_uid < -1 || agent_gid < -1)
      throw field_error("field 'agent_uid'/'agent_gid': must be -1 or more");
  }
  std::string stream() const { return "user/" + username; }
};

/// A long-lived access token exists (det token create). `token_hash` is
/// the SHA-256 (hex) of the token; the token itself is never stored.
/// `expires_at_us` 0 = never.
struct access_token_created {
  static constexpr const char* type_name = "access_token_created";
  static constexpr int32_t version = 1;
  int64_t token_id = 0;
  std::string username;
  std::string token_hash;
  std::string description;
  int64_t expires_at_us = 0;
  std::string by;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("token_id", token_id);
    f.req("username", username);
    f.req("token_hash", token_hash);
    f.opt("description", description);
    f.opt("expires_at_us", expires_at_us);
    f.opt("by", by);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (token_id <= 0)
      throw field_error("field 'token_id': must be positive");
    require_non_empty("username", username);
    require_token_hash(token_hash);
    require_non_negative("expires_at_us", expires_at_us);
  }
  std::string stream() const { return "user/" + username; }
};

/// An access token's description changed or it was revoked (a revoked
/// token stays listed and never authenticates again).
struct access_token_changed {
  static constexpr const char* type_name = "access_token_changed";
  static constexpr int32_t version = 1;
  int64_t token_id = 0;
  std::string username;
  std::string description;
  bool revoked = false;
  std::string by;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("token_id", token_id);
    f.req("username", username);
    f.opt("description", description);
    f.req("revoked", revoked);
    f.opt("by", by);
    f.opt("at_us", at_us);
  }
  void validate() const {
    if (token_id <= 0)
      throw field_error("field 'token_id': must be positive");
  }
  std::string stream() const { return "user/" + username; }
};

/// The cluster-wide message every client shows between `start_us` and
/// `end_us` (0 = no end); an empty message clears it.
struct cluster_message_set {
  static constexpr const char* type_name = "cluster_message_set";
  static constexpr int32_t version = 1;
  std::string message;
  int64_t start_us = 0;
  int64_t end_us = 0;
  std::string username;
  int64_t at_us = 0;

  template <class F> void fields(F& f) {
    f.req("message", message);
    f.opt("start_us", start_us);
    f.opt("end_us", end_us);
    f.opt("username", username);
    f.opt("at_us", at_us);
  }
  void validate() const {
    require_non_negative("start_us", start_us);
    require_non_negative("end_us", end_us);
    if (end_us != 0 && end_us <= start_us)
      throw field_error("field 'end_us': must be after start_us");
  }
  std::string stream() const { return "cluster"; }
};

using account_event_family =
    event_family<user_created, user_password_changed, session_started,
                 session_ended, user_edited, access_token_created,
                 access_token_changed, cluster_message_set>;

} // namespace det
