#pragma once

// Small encodings the master's API needs: base64 (model definitions travel
// as base64 in JSON) and the trial session token, an HMAC-SHA256 of the
// allocation id under a per-cluster secret, hex-encoded. A trial process
// gets its allocation's token as DET_SESSION_TOKEN; the trial endpoints
// recompute it, so a token opens exactly one allocation's endpoints and no
// table of tokens has to survive a restart.

#include "util/base64.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace det::api {

using det::base64_decode;
using det::base64_encode;

class session_tokens {
public:
  /// `secret` must not be empty.
  explicit session_tokens(std::string secret) : secret_(std::move(secret)) {}

  std::string token_for(std::string_view allocation_id) const;

  /// Constant-time comparison of `token` with token_for(allocation_id).
  bool valid(std::string_view allocation_id, std::string_view token) const;

  /// A task's DET_USER_TOKEN (commands, notebooks, shells: not trials): it
  /// signs in as the task's owner with the owner's own rights, so `det`
  /// inside the task works without a login, and only while the allocation
  /// lives (the token of `"user:" + allocation_id`).
  std::string user_token_for(std::string_view allocation_id) const;
  bool valid_user(std::string_view allocation_id, std::string_view token) const;

private:
  std::string secret_;
};

/// Constant-time equality of two secrets.
bool equal_secret(std::string_view a, std::string_view b);

/// The bearer token of an "Authorization: Bearer X" header value; empty
/// when absent or of another scheme.
std::string bearer_token(const std::optional<std::string>& header);

} // namespace det::api
