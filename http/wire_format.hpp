#pragma once

// Bytes of HTTP/1.1 responses as the server writes them: a status line and
// headers, and chunked-body framing. Plain string building, no Beast, so it
// is unit-tested directly and the Beast code only moves bytes.

#include "http/http_message.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace det::http {

struct head_options {
  bool keep_alive = true;
  /// Content-Length to send; nullopt with `chunked` for streams.
  std::optional<size_t> content_length;
  bool chunked = false;
  std::string_view server_name; ///< empty: no Server header
};

/// "HTTP/1.1 <status> <reason>\r\n" + headers + "\r\n". The handler's
/// Content-Length, Transfer-Encoding and Connection headers are replaced by
/// the server's; CR and LF inside names and values are dropped so a value
/// cannot inject headers. Content-Type defaults to application/json.
[[nodiscard]] std::string serialize_head(int status, const header_map& headers,
                                         const head_options& opts);

/// A complete response: head plus body.
[[nodiscard]] std::string serialize_response(const http_response& res,
                                             bool keep_alive,
                                             std::string_view server_name);

/// One chunk: "<hex size>\r\n<data>\r\n". Empty data gives "" (an empty
/// chunk would end the body; use last_chunk() for that).
[[nodiscard]] std::string chunk_frame(std::string_view data);

/// The zero-length chunk that ends a chunked body.
[[nodiscard]] std::string_view last_chunk();

} // namespace det::http
