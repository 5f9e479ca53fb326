#pragma once

// The secrets of user authentication, and only their one-way forms ever
// leave this file. The det CLI never sends a password: it sends
// client_hash(password), the lowercase hex SHA-512 of a fixed salt plus the
// password ("" stays ""). The master stores a salted PBKDF2 of that client
// hash ("pbkdf2-sha256$<iterations>$<salt hex>$<key hex>", or "" for a blank
// password), and a bearer token only as its SHA-256 (token_hash), so
// neither the event log nor a snapshot lets anyone log in.

#include <string>
#include <string_view>

namespace det::api {

/// What det 0.38.1 sends as "password" with isHashed=true.
std::string client_hash(std::string_view password);

/// The stored form of `client_hash_hex` with a fresh random salt; "" when
/// it is "" (blank password).
std::string store_password(std::string_view client_hash_hex);

/// Constant-time check of a login's client hash against the stored form.
/// A blank stored form accepts only a blank client hash.
bool password_matches(std::string_view stored,
                      std::string_view client_hash_hex);

/// True when `stored` was made with fewer iterations than store_password
/// uses now (it is re-hashed at the user's next login).
bool needs_rehash(std::string_view stored);

/// The work of one password check, for a user that does not exist, so a
/// login takes as long whether or not the name is known.
void spend_password_work(std::string_view client_hash_hex);

/// A fresh random UUID (version 4, RFC 9562), lower-case.
std::string new_uuid();

/// A fresh random bearer token (64 hex digits).
std::string new_token();

/// SHA-256 of `token`, hex: the only form in which tokens are kept.
std::string token_hash(std::string_view token);

} // namespace det::api
