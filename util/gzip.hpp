#pragma once

// gzip bodies (RFC 1952) assembled from pieces compressed once: a list
// whose rows rarely change keeps each row's deflate output, and a response
// is the rows' bytes joined, with a header, a final block and a trailer
// whose CRC-32 is combined from the rows' (no row is compressed again).
//
// A piece is raw deflate ended with a sync flush: whole blocks, none final,
// ending on a byte boundary, with no reference to bytes before it, so
// pieces can follow one another in any order. Text that changes with every
// answer (a page's envelope, the commas) goes in as stored blocks.

#include <cstdint>
#include <string>
#include <string_view>

namespace det::gzip {

/// `text` deflated on its own (see above).
struct piece {
  std::string deflated;
  uint32_t crc = 0;
  uint64_t size = 0;
};

/// Compresses `text` into a piece (zlib level 6).
[[nodiscard]] piece compress(std::string_view text);

/// One gzip member, built from text and pieces in order.
class writer {
public:
  writer();
  /// Appends `text` uncompressed (stored blocks).
  void text(std::string_view text);
  /// Appends a piece's bytes.
  void add(const piece& p);
  /// The whole member; the writer is left empty.
  [[nodiscard]] std::string finish();

private:
  std::string out_;
  uint32_t crc_ = 0;
  uint64_t size_ = 0;
};

/// `text` as one gzip member (zlib level 6).
[[nodiscard]] std::string compress_whole(std::string_view text);

/// True when an Accept-Encoding value admits gzip: a "gzip" (or "x-gzip",
/// or "*") token whose q is not 0. Case-insensitive.
[[nodiscard]] bool accepted(std::string_view accept_encoding);

} // namespace det::gzip
