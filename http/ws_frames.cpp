#include "http/ws_frames.hpp"

#include <algorithm>
#include <cstring>

namespace det::http {

bool ws_frame_scanner::feed(const unsigned char* p, size_t n) {
  size_t i = 0;
  while (ok_ && i < n) {
    if (remaining_ > 0) {
      auto skip = static_cast<size_t>(
          std::min<uint64_t>(remaining_, static_cast<uint64_t>(n - i)));
      remaining_ -= skip;
      i += skip;
      continue;
    }
    hdr_[hdr_len_++] = p[i++];
    if (hdr_len_ < 2)
      continue;
    unsigned len7 = hdr_[1] & 0x7fu;
    bool masked = (hdr_[1] & 0x80u) != 0;
    size_t need = 2
                  + (len7 == 126   ? 2
                     : len7 == 127 ? 8
                                   : 0)
                  + (masked ? 4 : 0);
    if (hdr_len_ < need)
      continue;
    uint64_t len = len7;
    if (len7 == 126)
      len = (uint64_t{hdr_[2]} << 8) | hdr_[3];
    else if (len7 == 127) {
      len = 0;
      for (size_t k = 2; k < 10; ++k)
        len = (len << 8) | hdr_[k];
    }
    bool control = (hdr_[0] & 0x08u) != 0;
    if (len > max_ || (control && len > 125)) {
      ok_ = false;
      break;
    }
    ++frames_;
    remaining_ = len;
    hdr_len_ = 0;
  }
  return ok_;
}

size_t response_head_scanner::feed(const unsigned char* p, size_t n) {
  static const char end[] = "\r\n\r\n";
  size_t i = 0;
  while (!done_ && i < n) {
    char c = static_cast<char>(p[i++]);
    if (seen_ < sizeof status_ - 1)
      status_[seen_] = c;
    ++seen_;
    matched_ = c == end[matched_] ? matched_ + 1 : (c == '\r' ? 1 : 0);
    if (matched_ == 4) {
      done_ = true;
      // "HTTP/1.1 101" (or HTTP/1.0): the status code at bytes 9..11.
      switching_ = seen_ >= 12 && std::memcmp(status_ + 9, "101", 3) == 0;
    }
  }
  return i;
}

} // namespace det::http
