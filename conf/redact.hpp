#pragma once

// Secrets out of a config before it is shown (`det master config`, logs,
// det-inspect). A secret is a value under a key named like one: password,
// agent_token, token, secret_key, access_key, secret_access_key,
// session_token, connection_string, credential, startup_script,
// container_startup_script, initial_user_password, signing_key (webhooks), and
// the stored password_hash and token_hash of users and sessions; plus the
// password inside a URL ("postgresql://u:pw@h/db"). tag_key, ssh_key_name and
// friends are not secrets.

#include <nlohmann/json.hpp>

#include <string>

namespace det::conf {

struct master_config;

/// What a redacted non-empty secret reads as.
inline constexpr const char* redacted_text = "********";

/// `tree` with every secret replaced by redacted_text (empty secrets stay
/// empty, so a reader can still tell "not set").
nlohmann::json redact(const nlohmann::json& tree);

/// `tree` with every set secret removed, its key too (URL passwords are
/// replaced, as by redact). For a config a client acts on: the SDK builds
/// a storage client from a checkpoint's experiment config, and with the
/// keys absent it uses the caller's own credentials (or, refused, falls
/// back to the master's download) instead of signing with a placeholder.
nlohmann::json without_secrets(const nlohmann::json& tree);

/// The effective master config, redacted: the body of
/// GET /api/v1/master/config.
nlohmann::json redacted_config(const master_config& cfg);

/// `url` with the password part of its userinfo replaced.
std::string redact_url(const std::string& url);

} // namespace det::conf
