#pragma once

// The key material one AWS request is signed with, and where it came from.
// Plain data; printing it never shows the secret or the session token.

#include <chrono>
#include <optional>
#include <string>

namespace det::aws {

struct credentials {
  std::string access_key_id;
  std::string secret_access_key;
  /// Empty for long-term keys; set for temporary (STS, instance role) keys.
  std::string session_token;
  /// When temporary keys stop working; empty for long-term keys.
  std::optional<std::chrono::system_clock::time_point> expiration;
  /// Which provider produced them, e.g. "environment" or
  /// "shared files (/root/.aws/credentials profile default)".
  std::string source;
};

/// "AKIA...WXYZ from environment": the key id shortened to its first four
/// and last four characters, never the secret or the token. For logs.
std::string describe(const credentials& creds);

} // namespace det::aws
