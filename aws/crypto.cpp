#include "aws/crypto.hpp"

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
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto at = [&](size_t k) {
    return static_cast<unsigned>(static_cast<unsigned char>(bytes[k]));
  };
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned n = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += alphabet[n & 63];
  }
  if (i + 1 == bytes.size()) {
    unsigned n = at(i) << 16;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    unsigned n = (at(i) << 16) | (at(i + 1) << 8);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

} // namespace det::aws
