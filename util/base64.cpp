#include "util/base64.hpp"

#include <cstdint>

namespace det {

namespace {

constexpr char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Each byte's 6-bit value; 64 for a line break (skipped), 65 for '='
// (padding), 255 for anything else.
constexpr uint8_t line_break = 64;
constexpr uint8_t padding = 65;
constexpr uint8_t invalid = 255;

struct decode_table {
  uint8_t v[256];
  constexpr decode_table() : v{} {
    for (auto& x : v)
      x = invalid;
    for (int i = 0; i < 64; ++i)
      v[static_cast<unsigned char>(alphabet[i])] = static_cast<uint8_t>(i);
    v[static_cast<unsigned char>('-')] = 62; // URL-safe
    v[static_cast<unsigned char>('_')] = 63;
    v[static_cast<unsigned char>('\n')] = line_break;
    v[static_cast<unsigned char>('\r')] = line_break;
    v[static_cast<unsigned char>('=')] = padding;
  }
};

constexpr decode_table table{};

/// Decodes `text` into `out` (sized by the caller to at least 3/4 of it)
/// and returns the bytes written, or nullopt. Model definitions reach a
/// hundred megabytes: one table look-up per character and no per-byte
/// growth of the output.
std::optional<size_t> decode_into(std::string_view text, char* out) {
  size_t n = 0;
  uint32_t acc = 0;
  int bits = 0;
  size_t pad = 0;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  // Whole groups of four without breaks or padding first.
  while (end - p >= 4) {
    uint32_t a = table.v[p[0]], b = table.v[p[1]], c = table.v[p[2]],
             d = table.v[p[3]];
    if ((a | b | c | d) >= 64)
      break;
    uint32_t w = (a << 18) | (b << 12) | (c << 6) | d;
    if (out != nullptr) {
      out[n] = static_cast<char>(w >> 16);
      out[n + 1] = static_cast<char>((w >> 8) & 0xff);
      out[n + 2] = static_cast<char>(w & 0xff);
    }
    n += 3;
    p += 4;
  }
  for (; p != end; ++p) {
    auto v = table.v[*p];
    if (v == line_break)
      continue;
    if (v == padding) {
      ++pad;
      continue;
    }
    if (pad > 0 || v == invalid)
      return std::nullopt;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (out != nullptr)
        out[n] = static_cast<char>((acc >> bits) & 0xff);
      ++n;
    }
  }
  if (pad > 2 || bits >= 6)
    return std::nullopt;
  return n;
}

} // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto at = [&](size_t k) {
    return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  out.resize(bytes.size() / 3 * 4);
  for (size_t o = 0; i + 2 < bytes.size(); i += 3, o += 4) {
    uint32_t n = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out[o] = alphabet[(n >> 18) & 63];
    out[o + 1] = alphabet[(n >> 12) & 63];
    out[o + 2] = alphabet[(n >> 6) & 63];
    out[o + 3] = alphabet[n & 63];
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
  std::string out(text.size() / 4 * 3 + 3, '\0');
  auto n = decode_into(text, out.data());
  if (!n)
    return std::nullopt;
  out.resize(*n);
  return out;
}

bool is_base64(std::string_view text) {
  return decode_into(text, nullptr).has_value();
}

} // namespace det
