#pragma once

// Hashing and encoding primitives the signer and the credential chain need,
// over OpenSSL's EVP interface. Pure functions, safe from any thread.

#include <string>
#include <string_view>

namespace det::aws {

/// The raw 32-byte SHA-256 digest of `data`.
std::string sha256(std::string_view data);

/// The raw 16-byte MD5 digest of `data` (S3's Content-MD5, not security).
std::string md5(std::string_view data);

/// The raw 32-byte HMAC-SHA256 of `data` under `key`.
std::string hmac_sha256(std::string_view key, std::string_view data);

/// Lowercase hexadecimal of every byte of `bytes`.
std::string to_hex(std::string_view bytes);

/// Standard base64 (RFC 4648, with padding), as EC2 wants for UserData
/// (util/base64's, under the name the signer's callers use).
std::string base64_encode(std::string_view bytes);

} // namespace det::aws
