#pragma once

// Reads the frame headers of a WebSocket byte stream (RFC 6455 section
// 5.2) as it passes through the proxy, without decoding payloads: enough to
// refuse a frame whose declared payload is over a limit before any of it
// is forwarded. Plain code, no I/O.

#include <cstddef>
#include <cstdint>

namespace det::http {

class ws_frame_scanner {
public:
  explicit ws_frame_scanner(uint64_t max_payload) : max_(max_payload) {}

  /// Reads `n` more bytes of the stream. False once a frame declares a
  /// payload over the limit, or a control frame over 125 bytes; it stays
  /// false.
  bool feed(const unsigned char* p, size_t n);

  [[nodiscard]] bool ok() const { return ok_; }
  /// Between two frames (nothing of one read but not all of it).
  [[nodiscard]] bool at_boundary() const {
    return remaining_ == 0 && hdr_len_ == 0;
  }
  /// Frames whose header was read whole.
  [[nodiscard]] uint64_t frames() const { return frames_; }

private:
  uint64_t max_;
  uint64_t remaining_ = 0; ///< payload bytes of the current frame still due
  unsigned char hdr_[14] = {};
  size_t hdr_len_ = 0;
  uint64_t frames_ = 0;
  bool ok_ = true;
};

/// Finds the end of an HTTP response head ("\r\n\r\n") in a byte stream
/// fed in pieces, and whether its status is 101 (Switching Protocols).
class response_head_scanner {
public:
  /// Reads bytes until the head ends; returns how many of `n` belonged to
  /// the head (all of them while it has not ended).
  size_t feed(const unsigned char* p, size_t n);
  [[nodiscard]] bool done() const { return done_; }
  [[nodiscard]] bool switching() const { return switching_; }

private:
  char status_[13] = {};
  size_t seen_ = 0;
  int matched_ = 0; ///< of "\r\n\r\n"
  bool done_ = false;
  bool switching_ = false;
};

} // namespace det::http
