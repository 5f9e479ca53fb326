#pragma once

// A WebSocket client for the agent channel (ws:// or wss://), one
// connection per object. connect() blocks until the handshake is done or
// failed; afterwards the client's own I/O thread delivers each text frame
// to on_message and, exactly once, the end of the connection to on_close.
// send() and close() may be called from any thread; frames are written in
// call order. Callbacks must not call close() or destroy the client (they
// run on the thread that close() joins).

#include <caf/error.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace det::agent {

struct ws_target {
  bool tls = false;
  std::string host;
  uint16_t port = 0;
  std::string path; ///< "/agents/ws?id=..."
};

struct ws_client_options {
  std::string bearer_token; ///< sent as Authorization when not empty
  std::string ca_cert;      ///< PEM bundle; "" = the system's roots
  bool skip_verify = false; ///< no certificate or host name check
  std::string server_name;  ///< expected name in the cert; "" = host
  std::chrono::milliseconds connect_timeout{std::chrono::seconds{10}};
};

class ws_client {
public:
  using message_handler = std::function<void(std::string text)>;
  using close_handler = std::function<void(std::string reason)>;

  ws_client();
  ~ws_client();
  ws_client(const ws_client&) = delete;
  ws_client& operator=(const ws_client&) = delete;

  /// Resolves, connects, (TLS-)handshakes and upgrades. Fails with
  /// errc::remote_error naming the step (the token is never included) or
  /// errc::invalid_argument for an unreadable CA file. Call once.
  [[nodiscard]] caf::error connect(const ws_target& target,
                                   const ws_client_options& opts,
                                   message_handler on_message,
                                   close_handler on_close);

  /// Queues one text frame; false once the connection is closed.
  bool send(std::string text);

  /// Closes the connection (a close frame, then the socket) and joins the
  /// I/O thread. Idempotent.
  void close();

  struct impl;

private:
  std::shared_ptr<impl> impl_;
};

} // namespace det::agent
