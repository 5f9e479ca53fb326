#include "aws/crypto.hpp"

#include "util/base64.hpp"
#include "util/text.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace det::aws {

std::string sha256(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // EVP_Digest only fails on allocation failure; an empty digest then makes
  // every signature wrong, which the server reports, so no error path here.
  if (EVP_Digest(data.data(), data.size(), out, &len, EVP_sha256(), nullptr)
      != 1)
    return {};
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string md5(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out, &len, EVP_md5(), nullptr) != 1)
    return {};
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(),
           out, &len)
      == nullptr)
    return {};
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string to_hex(std::string_view bytes) {
  return util::to_hex(bytes);
}

std::string base64_encode(std::string_view bytes) {
  return det::base64_encode(bytes);
}

} // namespace det::aws
