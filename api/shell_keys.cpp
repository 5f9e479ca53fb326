// OpenSSH's private key format ("openssh-key-v1", PROTOCOL.key in
// OpenSSH's sources): magic, cipher "none", kdf "none", one public key,
// then the private section (two equal check words, the key, a comment,
// padding 1, 2, 3 ... to a multiple of 8), all base64 in a PEM block of
// 70-character lines.

#include "api/shell_keys.hpp"

#include "util/base64.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <memory>

namespace det::api {

namespace {

void put_u32(std::string& out, uint32_t v) {
  out += static_cast<char>((v >> 24) & 0xff);
  out += static_cast<char>((v >> 16) & 0xff);
  out += static_cast<char>((v >> 8) & 0xff);
  out += static_cast<char>(v & 0xff);
}

void put_string(std::string& out, const std::string& s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  out += s;
}

/// The 32 bytes of the hex digest `hex` (64 hex digits).
std::string bytes_of_hex(const std::string& hex) {
  auto nibble = [](char c) {
    return c >= 'a' ? c - 'a' + 10 : (c >= 'A' ? c - 'A' + 10 : c - '0');
  };
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>((nibble(hex[i]) << 4) | nibble(hex[i + 1]));
  return out;
}

std::string pem_lines(const std::string& b64) {
  std::string out = "-----BEGIN OPENSSH PRIVATE KEY-----\n";
  for (size_t i = 0; i < b64.size(); i += 70)
    out += b64.substr(i, 70) + "\n";
  return out + "-----END OPENSSH PRIVATE KEY-----\n";
}

} // namespace

shell_key_pair shell_keys(const session_tokens& tokens,
                          const std::string& task_id) {
  auto seed = bytes_of_hex(tokens.token_for("shell-key:" + task_id));
  auto check = bytes_of_hex(tokens.token_for("shell-check:" + task_id));
  if (seed.size() != 32 || check.size() < 4)
    return {};
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{
      EVP_PKEY_new_raw_private_key(
          EVP_PKEY_ED25519, nullptr,
          reinterpret_cast<const unsigned char*>(seed.data()), seed.size()),
      &EVP_PKEY_free};
  if (!key)
    return {};
  std::array<unsigned char, 32> pub{};
  size_t pub_len = pub.size();
  if (EVP_PKEY_get_raw_public_key(key.get(), pub.data(), &pub_len) != 1
      || pub_len != pub.size())
    return {};
  const std::string type = "ssh-ed25519";
  std::string pub_bytes{reinterpret_cast<const char*>(pub.data()), pub.size()};
  std::string blob;
  put_string(blob, type);
  put_string(blob, pub_bytes);

  std::string priv;
  uint32_t checkint = 0;
  for (int i = 0; i < 4; ++i)
    checkint = (checkint << 8) | static_cast<unsigned char>(check[i]);
  put_u32(priv, checkint);
  put_u32(priv, checkint);
  put_string(priv, type);
  put_string(priv, pub_bytes);
  put_string(priv, seed + pub_bytes);
  put_string(priv, ""); // comment
  for (char pad = 1; priv.size() % 8 != 0; ++pad)
    priv += pad;

  std::string body{"openssh-key-v1", 14};
  body += '\0';
  put_string(body, "none");
  put_string(body, "none");
  put_string(body, "");
  put_u32(body, 1);
  put_string(body, blob);
  put_string(body, priv);
  return {pem_lines(base64_encode(body)),
          type + " " + base64_encode(blob) + "\n"};
}

} // namespace det::api
