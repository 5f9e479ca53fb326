#pragma once

// One accepted WebSocket connection (the agent channel, /agents/ws), as a
// copyable handle. send() and close() may be called from any thread; sends
// are queued and written in call order. Callbacks run on a server I/O
// thread, one at a time per session, and must not block (forward to an
// actor). Once on_close has run, no more on_message calls follow. A handle
// outliving the connection or the server is harmless: send() returns false.

#include "http/http_message.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace det::http {

/// Why a session ended.
struct ws_close_info {
  uint16_t code = 1006; ///< WebSocket close code; 1006 = no close frame
  std::string reason;   ///< peer's close reason or the transport error
};

namespace detail {

/// Implemented by the server for each live connection; thread-safe.
class ws_channel {
public:
  virtual ~ws_channel();
  virtual const http_request& request() const = 0;
  virtual bool send(std::string text) = 0;
  virtual void close(uint16_t code, std::string reason) = 0;
  virtual bool is_open() const = 0;
  virtual void set_on_message(std::function<void(std::string)> fn) = 0;
  virtual void set_on_close(std::function<void(ws_close_info)> fn) = 0;
};

} // namespace detail

class ws_session {
public:
  explicit ws_session(std::shared_ptr<detail::ws_channel> ch);

  /// The upgrade request: headers (Authorization), query, path, peer.
  [[nodiscard]] const http_request& request() const;

  /// Queues one text message. False if the session is closed or its send
  /// queue is over the server's limit (then the session is closed).
  [[nodiscard]] bool send(std::string text) const;

  /// Starts the closing handshake; on_close follows. Idempotent.
  void close(uint16_t code = 1000, std::string reason = {}) const;

  [[nodiscard]] bool is_open() const;

  /// Set these in the accept callback: reading starts when it returns.
  /// Setting them later is safe, but messages that arrived in between
  /// went to the previous callback.
  void on_message(std::function<void(std::string text)> fn) const;
  void on_close(std::function<void(ws_close_info)> fn) const;

private:
  std::shared_ptr<detail::ws_channel> ch_;
};

} // namespace det::http
