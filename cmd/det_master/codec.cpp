#include "cmd/det_master/codec.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <cstdint>

namespace det::master {

namespace {

constexpr char alphabet[] =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int value_of(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+' || c == '-')
    return 62;
  if (c == '/' || c == '_')
    return 63;
  return -1;
}

} // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto at = [&](size_t k) {
    return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += alphabet[n & 63];
  }
  if (i + 1 == bytes.size()) {
    uint32_t n = at(i) << 16;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    uint32_t n = (at(i) << 16) | (at(i + 1) << 8);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  size_t pad = 0;
  for (char c : text) {
    if (c == '\n' || c == '\r')
      continue;
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad > 0)
      return std::nullopt;
    auto v = value_of(c);
    if (v < 0)
      return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (pad > 2 || bits >= 6)
    return std::nullopt;
  return out;
}

std::string session_tokens::token_for(std::string_view allocation_id) const {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
       reinterpret_cast<const unsigned char*>(allocation_id.data()),
       allocation_id.size(), md.data(), &len);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

bool session_tokens::valid(std::string_view allocation_id,
                           std::string_view token) const {
  return equal_secret(token_for(allocation_id), token);
}

bool equal_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size()
         && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string bearer_token(const std::optional<std::string>& header) {
  static constexpr std::string_view prefix = "Bearer ";
  if (!header || header->compare(0, prefix.size(), prefix) != 0)
    return {};
  return header->substr(prefix.size());
}

} // namespace det::master
