#pragma once

// Blocking HTTP/1.1 and WebSocket clients for the api/ tests, on
// 127.0.0.1 only. Every socket read has a receive timeout (default 10 s)
// so a server bug fails a test instead of hanging it. Throws
// std::runtime_error on transport errors; tests treat that as a failure.

#include "http/http_message.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace det::http::testing {

struct client_response {
  int status = 0;
  header_map headers;
  std::string body;
};

using header_list = std::vector<std::pair<std::string, std::string>>;

class test_client {
public:
  explicit test_client(uint16_t port, bool tls = false,
                       std::chrono::seconds read_timeout = std::chrono::seconds{
                           10});
  ~test_client();

  /// Sends one request (Content-Length when `body` is set; none when
  /// nullopt) and reads the whole response, chunked or not.
  client_response request(const std::string& method, const std::string& target,
                          std::optional<std::string> body = std::nullopt,
                          const header_list& headers = {});

  /// Sends a request without reading the answer.
  void send_request(const std::string& method, const std::string& target,
                    std::optional<std::string> body = std::nullopt,
                    const header_list& headers = {});
  /// Reads a status line and headers.
  client_response read_head();
  /// Reads the rest of a response whose head read_head() returned.
  std::string read_body(const client_response& head);
  /// Reads one chunk of a chunked body; nullopt at the last chunk.
  std::optional<std::string> read_chunk();

  void write_raw(const std::string& bytes);
  /// True if the server closed the connection (EOF/reset) before any byte.
  bool peer_closed();
  void close();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

class ws_test_client {
public:
  ws_test_client(uint16_t port, const std::string& target, bool tls = false,
                 const header_list& headers = {});
  ~ws_test_client();

  void send(const std::string& text);
  /// The next message; nullopt once the server closed (close code then
  /// in close_code()).
  std::optional<std::string> read();
  uint16_t close_code() const;
  void close();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Tries a WebSocket upgrade and returns the HTTP status of the refusal
/// (or 101 when accepted).
int ws_upgrade_status(uint16_t port, const std::string& target,
                      const header_list& headers = {});

} // namespace det::http::testing
