#pragma once

// How the server reads one HTTP/1.1 request, as a pure function over bytes
// already received: Beast's parser with server_config's header limit, the
// request's own body limit (server_config::limit_for, known once the head
// is read; a declared Content-Length over it is refused before any body
// byte, a chunked body as soon as it passes it) and the same refusals a
// session sends (413, 431, 400). The server's sessions use the same steps
// (detail/server_core.hpp) on their sockets; this entry point exists for
// the HTTP fuzzer and tests, which have bytes but no socket.

#include "http/http_message.hpp"
#include "http/http_server.hpp"

#include <cstddef>
#include <string_view>

namespace det::http {

struct read_result {
  enum class kind {
    request,    ///< `request` holds the first complete request
    refused,    ///< the server answers `refusal` and closes
    incomplete, ///< the bytes end inside a request: the server closes
  };
  kind what = kind::incomplete;
  http_request request;
  http_response refusal;
  /// Bytes of the input the request took (a pipelined request follows).
  size_t consumed = 0;
  bool keep_alive = false;
  /// A WebSocket upgrade (the server hands it to its WebSocket route).
  bool upgrade = false;
};

/// Reads the first request in `bytes`; the peer address is left empty.
[[nodiscard]] read_result read_request(std::string_view bytes,
                                       const server_config& cfg);

} // namespace det::http
