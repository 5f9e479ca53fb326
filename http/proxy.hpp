#pragma once

// The reverse proxy of the master (`/proxy/{task id}/...`): the transport
// half. A request whose path is under the proxy's prefix is read whole
// (head and body, within the server's body limit), then handed to a
// resolver that authenticates it and names the backend, or refuses it with
// a response. Accepted, the connection leaves HTTP: the request goes to the
// backend with its path unchanged (credentials of the master stripped,
// X-Forwarded-* set, "Connection: close" unless it is a WebSocket upgrade)
// and the bytes are then copied both ways through one fixed buffer per
// direction, so a slow reader on either side slows the other instead of
// making the master buffer. A WebSocket's frames are checked on the way
// (ws_frames.hpp): a frame declaring more than max_frame bytes closes both
// sides before any of it is forwarded.
//
// TCP over WebSocket (proxy_target::tcp) carries a raw TCP service such as
// sshd instead.
//
// Bounds: connections per key (the task) at once, idle time (no byte
// either way), connect time to the backend.

#include "http/http_message.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <variant>

namespace det::http {

/// Where an accepted proxy request goes.
struct proxy_target {
  std::string host; ///< an IP address literal
  uint16_t port = 0;
  /// Connections are counted per key (the task id).
  std::string key;
  /// TCP over WebSocket (a shell's sshd, `python -m
  /// determined.cli.tunnel`): the proxy accepts the client's WebSocket
  /// itself and carries its binary messages to a plain TCP service
  /// (http/proxy_tcp.cpp). A request that is no upgrade is refused (400).
  bool tcp = false;
};

struct proxy_limits {
  /// Open proxied connections per key; more are refused with 429.
  size_t max_conns_per_key = 64;
  /// No byte either way for this long: both sides are closed.
  std::chrono::milliseconds idle_timeout{std::chrono::minutes{5}};
  std::chrono::milliseconds connect_timeout{std::chrono::seconds{10}};
  /// Largest WebSocket frame payload, either direction.
  uint64_t max_frame = 16u << 20;
  /// Bytes buffered per direction.
  size_t buffer = 64u << 10;
};

/// A resolver's answer: a refusal to send, or a backend.
using proxy_decision = std::variant<http_response, proxy_target>;

/// Authenticates `req` and decides; calls `done` once, from any thread,
/// at once or later. `req.path` is the full path, under the prefix.
using proxy_resolver = std::function<void(
    const http_request& req, std::function<void(proxy_decision)> done)>;

} // namespace det::http
