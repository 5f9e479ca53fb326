#include "api/codec.hpp"

#include "util/text.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <cstdint>

namespace det::api {

std::string session_tokens::token_for(std::string_view allocation_id) const {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
       reinterpret_cast<const unsigned char*>(allocation_id.data()),
       allocation_id.size(), md.data(), &len);
  return util::to_hex(
      std::string_view{reinterpret_cast<const char*>(md.data()), len});
}

bool session_tokens::valid(std::string_view allocation_id,
                           std::string_view token) const {
  return equal_secret(token_for(allocation_id), token);
}

std::string
session_tokens::user_token_for(std::string_view allocation_id) const {
  return token_for("user:" + std::string{allocation_id});
}

bool session_tokens::valid_user(std::string_view allocation_id,
                                std::string_view token) const {
  return equal_secret(user_token_for(allocation_id), token);
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

} // namespace det::api
