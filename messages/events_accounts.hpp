#pragma once

// Persisted events of users, their sessions and access tokens, and the
// cluster message. Included by messages/events.hpp (the catalogue); the
// rules there apply (past tense, never renamed, new fields at the end).
// Streams: "user/<name>" for users, sessions and tokens; "cluster" for the
// message.

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
};

/// A user's password changed (stored form as in user_created).
struct user_password_changed {
  static constexpr const char* type_name = "user_password_changed";
  static constexpr int32_t version = 1;
  std::string username;
  std::string password_hash;
  int64_t at_us = 0;
};

/// A user logged in. `token_hash` is the SHA-256 (hex) of the bearer token;
/// the token itself is never stored.
struct session_started {
  static constexpr const char* type_name = "session_started";
  static constexpr int32_t version = 1;
  std::string username;
  std::string token_hash;
  int64_t at_us = 0;
};

/// A session ended (logout); its token no longer authenticates.
struct session_ended {
  static constexpr const char* type_name = "session_ended";
  static constexpr int32_t version = 1;
  std::string username;
  std::string token_hash;
  int64_t at_us = 0;
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
};

} // namespace det
